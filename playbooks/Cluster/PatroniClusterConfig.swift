import Foundation
import Keel
import KeelSSH

/// Patroni's dynamic configuration, kept in etcd for the whole cluster: the HA timings, synchronous replication and
/// every PostgreSQL parameter. patroni.yml seeds it at bootstrap; afterwards only this resource changes it, with a
/// `PATCH /config` on the REST API of any member that answers. Parameters Keel no longer sets are removed.
struct PatroniClusterConfig: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "patroni cluster configuration" }
    /// Members pick the change up on their next cycle and may then need a restart.
    var affectsOtherResources: Bool { true }

    var probe: String { PatroniAPI.fromAnyMember(model, "/config") }

    /// The settings Keel owns, flattened: `ttl`, `postgresql.use_slots`, `postgresql.parameters.work_mem`, …
    var wanted: [String: String] {
        var settings: [String: String] = [
            "ttl": "\(model.ttl)", "loop_wait": "\(model.loopWait)", "retry_timeout": "\(model.retryTimeout)",
            "maximum_lag_on_failover": "1048576", "synchronous_mode": "\(model.synchronousMode)",
            "synchronous_mode_strict": "\(model.synchronousModeStrict)", "synchronous_node_count": "\(model.synchronousNodeCount)",
            "postgresql.use_pg_rewind": "true", "postgresql.use_slots": "true",
        ]
        for parameter in model.clusterParameters { settings["postgresql.parameters." + parameter.option] = parameter.value }
        return settings
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        // No member runs yet (a new cluster, with --check): the bootstrap section of patroni.yml seeds the
        // configuration, and the next run applies the rest.
        if output.text.isEmpty { return [] }
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(output.text.utf8)) else {
            throw PatroniAPI.unanswered(host)
        }
        let current = json.flattened()
        let wanted = self.wanted
        var summaries: [String] = []
        var patch: [String: Any] = [:]
        for key in wanted.keys.sorted() where current[key] != wanted[key] {
            summaries.append("\(key.replacingOccurrences(of: "postgresql.parameters.", with: "")): \(current[key] ?? "(unset)") → \(wanted[key]!)")
            Self.set(&patch, key, Self.typed(wanted[key]!))
        }
        for key in current.keys.sorted() where key.hasPrefix("postgresql.parameters.") && wanted[key] == nil {
            summaries.append("\(key.dropFirst("postgresql.parameters.".count)): \(current[key]!) → (removed)")
            Self.set(&patch, key, NSNull())
        }
        guard !patch.isEmpty else { return [] }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: patch, options: [.sortedKeys]), as: UTF8.self)
        // Each member applies the change on its next cycle, at most loop_wait seconds away.
        let sends = model.databaseHosts.map { PatroniAPI(model, member: $0).send("PATCH", "/config", json: body, timeout: 30) }
        let command = "{ " + sends.joined(separator: " || ") + "; } && sleep \(model.loopWait + 5)"
        return summaries.dropLast().map { Change($0) } + [Change(summaries.last!, commands: [command])]
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        try await host.run(changes)
    }

    /// A wanted value as JSON: numbers and booleans as such, the rest as strings.
    private static func typed(_ value: String) -> Any {
        if value == "true" || value == "false" { return value == "true" }
        if let number = Int(value) { return number }
        return value
    }

    private static func set(_ object: inout [String: Any], _ key: String, _ value: Any) {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 1 { object[key] = value; return }
        var nested = object[parts[0]] as? [String: Any] ?? [:]
        set(&nested, parts[1], value)
        object[parts[0]] = nested
    }
}

/// Any JSON value, for settings whose shape is open.
enum JSONValue: Decodable {
    case object([String: JSONValue]), array([JSONValue]), bool(Bool), integer(Int), number(Double), string(String), null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// Scalars by dotted path: `{"postgresql": {"parameters": {"a": 1}}}` → `["postgresql.parameters.a": "1"]`.
    func flattened(prefix: String = "") -> [String: String] {
        switch self {
        case .object(let members):
            members.reduce(into: [:]) { flat, member in
                flat.merge(member.value.flattened(prefix: prefix + member.key + "."), uniquingKeysWith: { $1 })
            }
        case .bool(let value): [String(prefix.dropLast()): "\(value)"]
        case .integer(let value): [String(prefix.dropLast()): "\(value)"]
        case .number(let value): [String(prefix.dropLast()): "\(value)"]
        case .string(let value): [String(prefix.dropLast()): value]
        case .array, .null: [:]
        }
    }
}
