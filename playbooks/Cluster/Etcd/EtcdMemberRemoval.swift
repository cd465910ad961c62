import Foundation
import Keel

/// A member leaves etcd: removed from the membership by a remaining member (`member remove`, which keeps quorum
/// checks strict), then stopped on its host and its data cleared, so that it can join again later as a new member.
struct EtcdMemberRemoval: Resource {
    let model: ClusterModel
    let member: String

    private var remaining: Etcdctl {
        Etcdctl(model, members: model.etcdHosts.filter { $0 != member }.map(model.address(of:)))
    }
    private var peerURL: String { "\(model.etcdScheme)://\(model.address(of: member)):2380" }

    var description: String { "\(member) removed from etcd's members" }

    var probe: String { remaining("--dial-timeout=2s --command-timeout=5s member list -w json") }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        struct List: Decodable {
            struct Member: Decodable {
                var id: UInt64
                var peerURLs: [String]
                enum CodingKeys: String, CodingKey {
                    case id = "ID"
                    case peerURLs
                }
            }
            var members: [Member]
        }
        guard let list = try? JSONDecoder().decode(List.self, from: Data(output.text.utf8)) else {
            throw ResourceError("etcd's member list is not readable from \(context.name): \(output.text.prefix(200))")
        }
        guard let id = list.members.first(where: { $0.peerURLs.contains(peerURL) })?.id else { return [] }
        return [
            Change(
                "remove \(member) (\(String(id, radix: 16))) from etcd",
                .shell(remaining("member remove \(String(id, radix: 16))") + " >/dev/null"))
        ]
    }
}
