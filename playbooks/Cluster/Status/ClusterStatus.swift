import Foundation
import Keel

/// The cluster as it runs now: Patroni members with role, state, timeline and lag, etcd's health, the VIP's holder
/// and the backups — read over SSH (Patroni's REST API, `etcdctl`, `pgbackrest info`), not from the inventory.
public struct ClusterStatus: Codable, Sendable {
    /// A member as Patroni's `/cluster` lists it.
    public struct Member: Codable, Sendable {
        public var name: String
        public var role: String
        public var state: String
        public var host: String
        public var timeline: Int?
        public var lag: Lag?
        /// A parameter waits for a restart to take effect.
        public var pendingRestart: Bool?

        enum CodingKeys: String, CodingKey {
            case name, role, state, host, timeline, lag
            case pendingRestart = "pending_restart"
        }

        /// The members in the JSON of Patroni's `/cluster`.
        static func decode(_ json: Data) throws -> [Member] {
            struct Cluster: Decodable { var members: [Member] }
            return try JSONDecoder().decode(Cluster.self, from: json).members
        }
    }

    /// Patroni reports lag as bytes, or as "unknown".
    public enum Lag: Codable, Sendable, CustomStringConvertible {
        case bytes(Int)
        case unknown(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bytes = try? container.decode(Int.self) {
                self = .bytes(bytes)
            } else {
                self = .unknown(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bytes(let bytes): try container.encode(bytes)
            case .unknown(let text): try container.encode(text)
            }
        }

        public var description: String {
            switch self {
            case .bytes(let bytes): "\(bytes) B"
            case .unknown(let text): text
            }
        }
    }

    public struct EtcdMember: Codable, Sendable {
        public var endpoint: String
        public var health: Bool
    }

    public var cluster: String
    public var readFrom: String
    public var members: [Member]
    public var etcd: [EtcdMember]
    /// The cluster VIP and the host holding it (nil when no host answered that it holds it).
    public var vip: String?
    public var vipHolder: String?
    /// The pgBackRest repository, when the cluster has one; nil also when it could not be read (see `backupError`).
    public var backups: BackupStatus?
    public var backupError: String?

    /// Reads the members and etcd's health through `transport`, a connection to member `host` of `model`.
    static func read(_ model: ClusterModel, host: String, transport: any Transport) async throws -> ClusterStatus {
        let patroni = try await transport.run(PatroniAPI(model, member: host).get("/cluster"), timeout: .seconds(15))
        guard patroni.succeeded else { throw PatroniAPI.unanswered(host) }
        let members = try Member.decode(Data(patroni.stdout))
        let health = try await transport.run(
            Etcdctl(model, client: .patroni).health(json: true) + " 2>/dev/null", timeout: .seconds(20))
        let etcd = (try? JSONDecoder().decode([EtcdMember].self, from: Data(health.stdout))) ?? []
        return ClusterStatus(cluster: model.name, readFrom: host, members: members, etcd: etcd, vip: model.vip?.address)
    }

    /// The command that succeeds on the host holding `vip`.
    static func holdsVIP(_ vip: String) -> String { "ip -4 -o addr show | grep -q ' inet \(vip)/'" }

    /// The status as indented JSON (URLs as they are, slashes unescaped).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A table for the terminal.
    public var table: String {
        var rows = [["MEMBER", "HOST", "ROLE", "STATE", "TL", "LAG"]]
        for member in members.sorted(by: { $0.name < $1.name }) {
            rows.append([
                member.name, member.host, member.role, member.state, member.timeline.map(String.init) ?? "",
                member.lag?.description ?? "",
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = "cluster \(cluster) (read on \(readFrom))\n"
        for row in rows {
            text +=
                zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "\n"
        }
        let healthy = etcd.filter(\.health).count
        text += "etcd: \(healthy) of \(etcd.count) members healthy"
        text +=
            etcd.isEmpty
            ? " (no answer)\n"
            : " — " + etcd.map { "\($0.endpoint) \($0.health ? "ok" : "UNHEALTHY")" }.joined(separator: ", ") + "\n"
        if let vip { text += "vip: \(vip) held by \(vipHolder ?? "NO HOST")\n" }
        if let backups { text += backups.summary + "\n" }
        if let backupError { text += "backups: UNKNOWN (\(backupError))\n" }
        return text
    }
}
