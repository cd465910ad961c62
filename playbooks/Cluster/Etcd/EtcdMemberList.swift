import Foundation
import Keel

/// etcd's membership as `etcdctl member list -w json` prints it.
struct EtcdMemberList: Decodable {
    struct Member: Decodable {
        /// The member's ID (etcdctl takes it in hexadecimal).
        var id: UInt64
        var peerURLs: [String]
        /// Absent until the member first starts and publishes them (its name, by contrast, is set from the initial
        /// cluster for a new cluster's first members).
        var clientURLs: [String]?

        /// Whether the member has ever run.
        var hasStarted: Bool { !(clientURLs ?? []).isEmpty }

        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case peerURLs, clientURLs
        }
    }

    var members: [Member]

    /// The command that prints it, through `etcdctl`, bounded in time.
    static func command(_ etcdctl: Etcdctl) -> ShellCommand {
        etcdctl("--dial-timeout=2s --command-timeout=5s member list -w json")
    }

    /// Reads the list from etcdctl's output; `source` names where it was read, for the error.
    init(_ output: String, readFrom source: String) throws {
        guard let list = try? JSONDecoder().decode(Self.self, from: Data(output.utf8)) else {
            throw ResourceError(
                "etcd's member list, read from \(source), is not what etcdctl prints: \(output.prefix(200))")
        }
        self = list
    }

    /// The member whose peer URL is `url`.
    func member(at url: String) -> Member? { members.first { $0.peerURLs.contains(url) } }
}
