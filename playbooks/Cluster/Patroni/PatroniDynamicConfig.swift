import Foundation
import Keel

/// Patroni's dynamic configuration, kept in etcd for the whole cluster: the HA timings, synchronous replication and
/// every PostgreSQL parameter. ``wanted(_:)`` seeds it too (patroni.yml's `bootstrap.dcs`, read once, when the
/// cluster is initialized); afterwards only this resource changes it, with a `PATCH /config` on the REST API of any
/// member that answers. Parameters Keel no longer sets are removed.
struct PatroniDynamicConfig: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "patroni cluster configuration" }
    /// Members pick the change up on their next cycle and may then need a restart.
    var affectsOtherResources: Bool { true }

    /// The configuration from any member, then the parameters this member's PostgreSQL applies only on a restart.
    var probe: String {
        let settings = model.postgres.run("SELECT name FROM pg_settings WHERE context = 'postmaster'")
        let probe: ShellCommand =
            "\(PatroniAPI.fromAnyMember(model, "/config")); echo; echo \(Self.restartSeparator); \(settings) 2>/dev/null || true"
        return probe.text
    }

    private static let restartSeparator = "---restart-only"

    /// The settings Keel owns, typed as Patroni keeps them; patroni.yml's `bootstrap.dcs` too, so that a new
    /// cluster starts with every one of them (its first deploy neither patches nor restarts a member).
    static func wanted(_ model: ClusterModel) -> JSONValue {
        .object([
            "ttl": .integer(model.patroni.ttl), "loop_wait": .integer(model.patroni.loopWait),
            "retry_timeout": .integer(model.patroni.retryTimeout),
            "maximum_lag_on_failover": .integer(model.patroni.maximumLagOnFailover),
            "synchronous_mode": .bool(model.patroni.synchronousMode),
            "synchronous_mode_strict": .bool(model.patroni.synchronousModeStrict),
            "synchronous_node_count": .integer(model.patroni.synchronousNodeCount),
            "member_slots_ttl": .string(model.patroni.memberSlotsTTL),
            "failsafe_mode": .bool(model.patroni.failsafeMode),
            "postgresql": .object([
                "use_pg_rewind": .bool(true), "use_slots": .bool(true),
                "parameters": .object(
                    Dictionary(model.clusterParameters.map { ($0.option, $0.value) }, uniquingKeysWith: { $1 })),
            ]),
        ])
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        // No member runs yet (a new cluster, with --check): the bootstrap section of patroni.yml seeds the
        // configuration.
        // The separator is a line of its own; the last line of the output, when this member's PostgreSQL does not
        // answer (a member just started), with no newline after it.
        let lines = output.text.components(separatedBy: "\n")
        let separator = lines.firstIndex(of: Self.restartSeparator) ?? lines.endIndex
        let config = lines[..<separator].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if config.isEmpty { return [] }
        guard let current = try? JSONDecoder().decode(JSONValue.self, from: Data(config.utf8)) else {
            throw PatroniAPI.unanswered(host)
        }
        let restartOnly = Set(lines[separator...].dropFirst().filter { !$0.isEmpty })
        let (patch, changed) = Self.difference(
            from: current, to: Self.wanted(model), removing: [["postgresql", "parameters"]])
        let summaries = changed.map { line in
            restartOnly.contains(String(line.prefix { $0 != ":" })) ? line + " (applied on a restart)" : line
        }
        guard let last = summaries.last else { return [] }
        // The member sent the change applies it at once; the others on their next cycle, at most the loop_wait in
        // force away; each publishes the restart it then flags a cycle later, at most the new loop_wait on.
        let sends = model.databaseHosts.map {
            PatroniAPI(model, member: $0).send("PATCH", "/config", json: patch.json, timeout: 30)
        }
        let published = (current.members["loop_wait"]?.text.flatMap { Int($0) } ?? 10) + model.patroni.loopWait + 5
        // The time stays on the host: a run killed before the members publish it leaves the next run to wait for
        // them before it looks (see PendingRestart).
        let command: ShellCommand =
            "{ \(sends.joined(separator: " || ")); } && \(PendingRestart.stamp(Self.changedMark, publishedWithin: published)) "
            + "&& sleep \(published)"
        var changes = summaries.dropLast().map { Change($0, actions: []) } + [Change(last, .shell(command))]
        if summaries.contains(where: { $0.hasSuffix("(applied on a restart)") }) {
            changes.append(
                Change(
                    "then the members restart one at a time: the replicas, then the leader after a switchover to a "
                        + "restarted replica (in place, first, when it lowers "
                        + PendingRestart.hotStandbyMinimums.joined(separator: ", ") + ")", actions: []))
        }
        return changes
    }

    /// When the members have published what the last change of the cluster's dynamic configuration made them flag
    /// (seconds since the epoch), on the host that changed it.
    static let changedMark = "/run/keel/dcs-config-published"

    /// The JSON merge patch that turns `current` into `wanted` for every key `wanted` holds, with a line per
    /// setting (`work_mem: 8MB → 16MB`); within the objects at `removing`, keys `wanted` lacks become null.
    /// Values compare as text: `200` and `"200"` are the same setting.
    static func difference(
        from current: JSONValue, to wanted: JSONValue, removing: Set<[String]>, path: [String] = []
    ) -> (patch: JSONValue, summaries: [String]) {
        var patch: [String: JSONValue] = [:]
        var summaries: [String] = []
        let have = current.members
        for (key, value) in wanted.members.sorted(by: { $0.key < $1.key }) {
            if case .object = value {
                let (nested, lines) = difference(
                    from: have[key] ?? .null, to: value, removing: removing, path: path + [key])
                if !nested.members.isEmpty { patch[key] = nested }
                summaries += lines
            } else if have[key]?.text != value.text {
                patch[key] = value
                summaries.append("\(key): \(have[key]?.text ?? "(unset)") → \(value.text ?? value.json)")
            }
        }
        if removing.contains(path) {
            for (key, value) in have.sorted(by: { $0.key < $1.key }) where wanted.members[key] == nil && value != .null
            {
                patch[key] = .null
                summaries.append("\(key): \(value.text ?? value.json) → (removed)")
            }
        }
        return (.object(patch), summaries)
    }
}
