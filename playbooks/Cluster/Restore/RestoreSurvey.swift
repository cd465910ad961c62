import Foundation
import Keel

/// What a restore reads before it plans: which cluster each member serves (``ClusterIdentity``: another cluster's
/// name or data is refused), the cluster's journal of restores (``RestoreJournal``: an unfinished one
/// is resumed, retargeted or abandoned, never mixed with another; a finished one is not run again), then the
/// running cluster — its leader, timeline and backups — and its archiver, read without writing anything: the WAL
/// switch that makes the archive reach the restore's planning is made by the leader's stop, once confirmed.
public enum RestoreSurvey {
    /// The plan for `target` and what the journal decided: the plan of the restore resumed, finished or abandoned,
    /// or a new one (in place of an unfinished one when retargeted).
    /// - Throws: ``FlowError`` for what cannot be restored or resumed; ``StatusError`` when no member answers.
    public static func plan(
        _ model: ClusterModel, target: RestoreTarget, again: Bool, abandon: Bool, inventory: Inventory, fleet: Fleet
    ) async throws -> (RestorePlan, RestoreJournal.Decision) {
        let hosts = model.databaseAndRepositoryHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { target, transport in
            let progress = try await transport.run(JournalRecord.readAll, timeout: .seconds(10)).stdoutText
            guard model.databaseHosts.contains(target.name) else { return (progress, nil as ClusterIdentity?) }
            return (progress, ClusterIdentity(try await transport.run(ClusterIdentity.read(model).text).stdoutText))
        }
        var records: [String: RestoreProgress] = [:]
        var identities: [String: ClusterIdentity] = [:]
        for (host, outcome) in zip(hosts, outcomes) {
            guard case .done(let (text, identity), _) = outcome else { continue }
            if let progress = RestoreProgress.read(text) { records[host] = progress }
            identities[host] = identity
        }
        let systemID = try ClusterIdentity.check(identities, model)
        let decision = try RestoreJournal(records: records, cluster: model.name).decide(
            target: target, again: again, abandon: abandon)
        switch decision {
        case .finished(let progress), .resume(let progress), .abandon(let progress):
            return (progress.plan, decision)
        case .retarget(let unfinished):
            // The cluster is stopped: the archive reaches where it did when the unfinished restore was planned.
            let plan = try RestorePlan(
                model, target: target,
                backups: try await backups(model, on: unfinished.plan.restoreHost, inventory: inventory, fleet: fleet),
                archivedUntil: unfinished.plan.archivedUntil, timeline: unfinished.plan.timeline,
                leader: unfinished.plan.restoreHost, systemID: systemID ?? unfinished.plan.systemID)
            return (plan, decision)
        case .new: break
        }
        let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
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
            leader: leader.name, systemID: systemID)
        return (plan, decision)
    }

    /// The repository's backups, read on its host (or on `member` for a shared repository) while the cluster is
    /// stopped.
    private static func backups(_ model: ClusterModel, on member: String, inventory: Inventory, fleet: Fleet)
        async throws -> BackupStatus?
    {
        guard let backups = model.backups else { return nil }
        let host = backups.repositoryHost ?? member
        switch await fleet.run(
            [try inventory.target(for: host)],
            { _, transport in
                try await BackupStatus.read(backups, host: host, transport: transport)
            })[0]
        {
        case .done(let status, _): return status
        case .unreachable(let error), .failed(let error):
            throw FlowError("the repository on \(host) could not be read: \(error)", hint: "see keel status")
        }
    }

    /// The leader's clock now, which the archive will reach when the leader stops (its WAL switched and archived
    /// first), read only: the archiver must have archived before and not be failing since.
    private static func archivedUntil(_ model: ClusterModel, leader: String, inventory: Inventory, fleet: Fleet)
        async throws -> Date?
    {
        let archiver =
            "SELECT extract(epoch FROM now()), last_archived_time IS NOT NULL, "
            + "coalesce(last_failed_time > last_archived_time, false) FROM pg_stat_archiver"
        let command = """
            r=$(\(model.postgres.run(archiver))) || exit 1
            case "$r" in
              *'|t|f') echo "${r%%|*}" ;;
              *'|f|'*) echo "the archiver has archived no segment yet" >&2; exit 1 ;;
              *) echo "the archiver's last attempt failed" >&2; exit 1 ;;
            esac
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
