import Foundation

/// A member as Patroni's `/cluster` lists it, with the state its own Patroni reports when it answers.
public struct PatroniMember: Codable, Sendable {
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

    /// The members in the JSON of Patroni's `/cluster`, and whether Patroni is paused (maintenance mode).
    static func decode(_ json: Data) throws -> (members: [PatroniMember], paused: Bool) {
        struct Cluster: Decodable {
            var members: [PatroniMember]
            var pause: Bool?
        }
        let cluster = try JSONDecoder().decode(Cluster.self, from: json)
        return (cluster.members, cluster.pause ?? false)
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
}
