import Foundation
import Keel

/// Restarts the members whose PostgreSQL waits for a restart to apply a parameter (`pending_restart`), one at a
/// time: the replicas first, each back in service before the next goes down, then the leader — after a switchover
/// to a restarted replica, so writes stop only for the handover, unless it lowers a setting a hot standby must
/// hold at least at the primary's value (those replicas apply it only after the primary did, so the leader
/// restarts in place first) or its Patroni does not say which settings wait.
struct PendingRestart: Resource {
    let model: ClusterModel
    let host: String
    /// Whether the leader may hand over before it restarts; not when restarts are tried again, so the role moves once.
    var handsOver = true

    /// Settings a hot standby must hold at least at the primary's value (PostgreSQL's documentation, "Hot Standby").
    static let hotStandbyMinimums = [
        "max_connections", "max_prepared_transactions", "max_locks_per_transaction", "max_wal_senders",
        "max_worker_processes",
    ]

    var description: String { "rolling restart of members with pending parameter changes" }

    /// The members as Patroni lists them, once every member has published what it flags after the last
    /// configuration change or reload of patroni.yml (a killed run may have done either seconds ago): until then
    /// Patroni's list may miss a pending restart. It waits itself, not trusting ``UnflaggedRestart``'s probe to
    /// have waited first: a batch's probes run side by side.
    var probe: String {
        (Self.untilPublished(PatroniDynamicConfig.changedMark) + "; "
            + Self.untilPublished(PatroniNodeRole.reloadedMark) + "; " + PatroniAPI.fromAnyMember(model, "/cluster"))
            .text
    }

    /// Records in `mark` the time, `seconds` from now, by which every member has applied a configuration change
    /// and published the restart it flags.
    static func stamp(_ mark: String, publishedWithin seconds: Int) -> ShellCommand {
        "mkdir -p /run/keel && echo $(( $(date +%s) + \(seconds) )) > \(mark)"
    }

    /// Sleeps until the time in `mark`, if any.
    static func untilPublished(_ mark: String) -> ShellCommand {
        "if [ -e \(mark) ]; then w=$(( $(cat \(mark)) - $(date +%s) )); "
            + "[ \"$w\" -gt 0 ] 2>/dev/null && sleep \"$w\"; fi"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        // No member runs yet (a new cluster, with --check): nothing waits for a restart.
        if output.text.isEmpty { return [] }
        guard let members = try? PatroniMember.decode(Data(output.text.utf8)).members else {
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
            let restart = api.send("POST", "/restart", json: #"{"restart_pending": true}"#, timeout: 600)
            guard member.role == "leader", handsOver, members.count > 1 else {
                return Change(
                    "restart \(member.name) (\(member.role))", .shell(restart), .shell(api.waitInService))
            }
            // Demoted, the former leader restarts as a replica: restarted again only if it still waits.
            let handOver = SwitchedOver.handOver(model, from: member.name, to: nil).joined(separator: " && ")
            return Change(
                "restart \(member.name) (leader), after a switchover to a restarted replica unless it lowers "
                    + Self.hotStandbyMinimums.joined(separator: ", "),
                .shell(
                    "if \(api.get("/patroni")) | python3 -c \(Self.lowersMinimum); then \(restart); "
                        + "else \(handOver) && if \(api.flagsPendingRestart); then \(restart); fi; fi"),
                .shell(api.waitInService))
        }
    }

    /// Succeeds when the member's `/patroni` on stdin lowers one of ``hotStandbyMinimums``, or does not say what
    /// waits for the restart (`pending_restart_reason`, Patroni 3.3 and later).
    static let lowersMinimum = """
        import json, sys
        reasons = json.load(sys.stdin).get("pending_restart_reason")
        def number(text):
            try:
                return float(text)
            except (TypeError, ValueError):
                return 0.0
        sys.exit(0 if reasons is None or any(
            name in (\(hotStandbyMinimums.map { "\"\($0)\"" }.joined(separator: ", ")))
            and number(reason.get("new_value")) < number(reason.get("old_value"))
            for name, reason in reasons.items()) else 1)
        """

    /// Restarts as planned, then waits for the members to publish that nothing is pending (on their next cycle).
    /// A hot standby keeps `max_connections` and its kin at least at the primary's values, so lowering one leaves
    /// the replicas pending until the primary has restarted: those go once more.
    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        try await host.perform(changes)
        var restartedAgain = false
        for second in 1...(3 * model.patroni.loopWait) {
            try await Task.sleep(for: .seconds(1))
            var again = self
            again.handsOver = false
            let remaining = try again.changes(
                from: ProbeOutput(text: try await host.run(probe).stdoutText), on: host.context)
            if remaining.isEmpty { return }
            if !restartedAgain, second > model.patroni.loopWait + 2 {
                try await host.perform(remaining)
                restartedAgain = true
            }
        }
    }
}
