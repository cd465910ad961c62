import Foundation
import Keel
import KeelSSH

/// Restarts the members whose PostgreSQL waits for a restart to apply a parameter (`pending_restart`), one at a
/// time: the replicas first, the leader last, each back in service before the next goes down.
struct PendingRestart: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "rolling restart of members with pending parameter changes" }

    var probe: String { PatroniAPI.fromAnyMember(model, "/cluster") }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        struct Cluster: Decodable {
            struct Member: Decodable {
                var name: String, role: String, host: String
                var pendingRestart: Bool?
                enum CodingKeys: String, CodingKey { case name, role, host, pendingRestart = "pending_restart" }
            }
            var members: [Member]
        }
        // No member runs yet (a new cluster, with --check): nothing waits for a restart.
        if output.text.isEmpty { return [] }
        guard let cluster = try? JSONDecoder().decode(Cluster.self, from: Data(output.text.utf8)) else {
            throw PatroniAPI.unanswered(host)
        }
        let pending = cluster.members.filter { $0.pendingRestart == true }
            .sorted { ($0.role == "leader" ? 1 : 0, $0.name) < ($1.role == "leader" ? 1 : 0, $1.name) }
        return pending.map { member in
            let api = PatroniAPI(address: member.host)
            return Change("restart \(member.name) (\(member.role))", commands: [
                api.send("POST", "/restart", json: #"{"restart_pending": true}"#, timeout: 600),
                api.waitInService,
            ])
        }
    }

    /// Restarts as planned, then waits for the members to publish that nothing is pending (on their next cycle).
    /// A hot standby keeps `max_connections` and its kin at least at the primary's values, so lowering one leaves
    /// the replicas pending until the primary has restarted: those go once more.
    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        try await host.run(changes)
        var restartedAgain = false
        for second in 1...(3 * model.loopWait) {
            try await Task.sleep(for: .seconds(1))
            let remaining = try self.changes(from: ProbeOutput(text: try await host.run(probe).stdoutText), on: host.context)
            if remaining.isEmpty { return }
            if !restartedAgain, second > model.loopWait + 2 {
                try await host.run(remaining)
                restartedAgain = true
            }
        }
    }
}
