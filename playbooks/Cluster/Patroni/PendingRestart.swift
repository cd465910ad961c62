import Foundation
import Keel

/// Restarts the members whose PostgreSQL waits for a restart to apply a parameter (`pending_restart`), one at a
/// time: the replicas first, the leader last, each back in service before the next goes down.
struct PendingRestart: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "rolling restart of members with pending parameter changes" }

    /// The members as Patroni lists them, once every member has had a cycle to apply the last configuration
    /// change (a killed run may have made it seconds ago): until then no one flags a pending restart yet.
    var probe: String {
        let mark = PatroniDynamicConfig.changedMark
        return "if [ -e \(mark) ]; then w=$(( $(cat \(mark)) + \(model.loopWait + 5) - $(date +%s) )); "
            + "[ \"$w\" -gt 0 ] 2>/dev/null && sleep \"$w\"; fi; " + PatroniAPI.fromAnyMember(model, "/cluster")
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        // No member runs yet (a new cluster, with --check): nothing waits for a restart.
        if output.text.isEmpty { return [] }
        guard let members = try? ClusterStatus.Member.decode(Data(output.text.utf8)).members else {
            throw PatroniAPI.unanswered(host)
        }
        let pending = members.filter { $0.pendingRestart == true }
            .sorted { ($0.role == "leader" ? 1 : 0, $0.name) < ($1.role == "leader" ? 1 : 0, $1.name) }
        return try pending.map { member in
            // Keel acts only on the members the inventory names, at the addresses the model knows.
            guard model.databaseHosts.contains(member.name) else {
                throw ResourceError(
                    "Patroni lists a member \(member.name) that is not a database host of the inventory; remove it or list it"
                )
            }
            let api = PatroniAPI(model, member: member.name)
            return Change(
                "restart \(member.name) (\(member.role))",
                .shell(api.send("POST", "/restart", json: #"{"restart_pending": true}"#, timeout: 600)),
                .shell(api.waitInService))
        }
    }

    /// Restarts as planned, then waits for the members to publish that nothing is pending (on their next cycle).
    /// A hot standby keeps `max_connections` and its kin at least at the primary's values, so lowering one leaves
    /// the replicas pending until the primary has restarted: those go once more.
    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        try await host.perform(changes)
        var restartedAgain = false
        for second in 1...(3 * model.loopWait) {
            try await Task.sleep(for: .seconds(1))
            let remaining = try self.changes(
                from: ProbeOutput(text: try await host.run(probe).stdoutText), on: host.context)
            if remaining.isEmpty { return }
            if !restartedAgain, second > model.loopWait + 2 {
                try await host.perform(remaining)
                restartedAgain = true
            }
        }
    }
}
