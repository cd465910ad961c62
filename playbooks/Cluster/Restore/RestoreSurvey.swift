import Foundation
import Keel

/// What a restore reads before it plans: an earlier restore's progress on the members (an unfinished one is
/// resumed, never mixed with another), then the running cluster — its leader, timeline and backups — and how far
/// the WAL archive reaches, proven by a commit and a WAL switch on the leader that the archiver then archives.
public enum RestoreSurvey {
    /// The plan for `target`, and the progress of the restore it continues (nil for a new one): an unfinished
    /// restore to the same target, or a finished one unless `again`.
    /// - Throws: ``FlowError`` for what cannot be restored or resumed; ``StatusError`` when no member answers.
    public static func plan(
        _ model: ClusterModel, target: RestoreTarget, again: Bool, inventory: Inventory, connection: ConnectionOptions,
        forks: Int
    ) async throws -> (RestorePlan, RestoreProgress?) {
        let fleet = Fleet(options: connection, forks: max(forks, model.databaseHosts.count))
        let hosts = model.databaseHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { _, transport in
            try await transport.run(RestoreProgress.read, timeout: .seconds(10)).stdoutText
        }
        let progress = zip(hosts, outcomes).compactMap { host, outcome -> (String, RestoreProgress)? in
            guard case .done(let text, _) = outcome, let progress = RestoreProgress(text) else { return nil }
            return (host, progress)
        }
        if let (host, unfinished) = progress.first(where: { !$0.1.isFinished }) {
            guard unfinished.plan.target == target else {
                throw FlowError(
                    "\(host) is in the middle of another restore: \(unfinished.plan.id) (done: "
                        + "\(unfinished.stages.isEmpty ? "nothing yet" : unfinished.stages.joined(separator: ", ")))",
                    hint: "run keel restore with that target again to finish it")
            }
            // The restore host's progress says how far the restore got.
            let restoring = progress.first { $0.0 == unfinished.plan.restoreHost && $0.1.plan.id == unfinished.plan.id }
            return (unfinished.plan, restoring?.1 ?? unfinished)
        }
        if !again, let (_, finished) = progress.first(where: { $0.1.plan.target == target }) {
            return (finished.plan, finished)
        }
        let status = try await ClusterStatus.gather(model, inventory: inventory, connection: connection, forks: forks)
        guard let leader = status.members.first(where: { ["leader", "standby_leader"].contains($0.role) }) else {
            throw FlowError(
                "the cluster has no leader: a restore reads how far the WAL archive reaches on it",
                hint: "see keel status")
        }
        if let error = status.backupError {
            throw FlowError("the repository could not be read: \(error)", hint: "see keel status")
        }
        let archived = try await archivedUntil(model, leader: leader.name, inventory: inventory, fleet: fleet)
        let plan = try RestorePlan(
            model, target: target, backups: status.backups, archivedUntil: archived, timeline: leader.timeline,
            leader: leader.name)
        return (plan, nil)
    }

    /// The leader's clock once everything committed until then is in the archive: a commit (so that recovery to
    /// any earlier moment has a commit after it to stop at), a WAL switch, and the archiver's word that it
    /// archived the switched segment.
    private static func archivedUntil(_ model: ClusterModel, leader: String, inventory: Inventory, fleet: Fleet)
        async throws -> Date?
    {
        let switched = "SELECT extract(epoch FROM now()) || ' ' || pg_walfile_name(pg_switch_wal())"
        // The segment's name (hex digits, from PostgreSQL) goes into the query between its quotes.
        let archived =
            "printf \(shellQuote("SELECT last_archived_wal >= '%s' FROM pg_stat_archiver\\n")) \"${s#* }\" | "
            + model.postgres.psql()
        let command = """
            \(model.postgres.run("SELECT txid_current()")) >/dev/null || exit 1
            s=$(\(model.postgres.run(switched))) || exit 1
            for i in $(seq 60); do
              [ "$(\(archived))" = t ] && { echo "${s% *}"; exit 0; }
              sleep 1
            done
            echo "segment ${s#* } was not archived within 60 s" >&2; exit 1
            """
        let outcome = await fleet.run([try inventory.target(for: leader)]) { _, transport in
            try await transport.run(command, timeout: .seconds(90))
        }[0]
        switch outcome {
        case .done(let result, _):
            guard result.succeeded else {
                throw FlowError(
                    "the WAL archive on \(leader) is not keeping up: \(result.stderrText)",
                    hint: "check archiving: pgbackrest check, and pg_stat_archiver on the leader")
            }
            return Double(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
                .map { Date(timeIntervalSince1970: $0) }
        case .unreachable(let error), .failed(let error):
            throw FlowError("\(leader) could not be read: \(error)", hint: "see keel status")
        }
    }
}
