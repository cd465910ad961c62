import Foundation
import Keel

/// The major upgrade of a running cluster in place (pg_upgrade --link), planned from the running cluster: refused,
/// with the reason and nothing changed, while the cluster is not healthy, a member runs another release than the
/// inventory names, the target is not newer, a transaction is prepared, a replica lags, or a member lacks the disk.
/// Its first stage changes nothing of the running cluster (the new release beside the old, every extension checked,
/// `pg_upgrade --check` on the leader); then ``UpgradePlays/upgrade()``. The plan is recorded on every host taking
/// part: a killed run resumes, and until the new leader starts, `--rollback` brings the old cluster back.
public struct UpgradeFlow: ClusterFlow, Sendable {
    public static let name = UpgradePlan.flow
    public static let summary =
        "Upgrade PostgreSQL to a newer major release in place (pg_upgrade --link), checked on every member first."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    /// What the run does with the plan.
    public enum Mode: Sendable, Equatable {
        /// The upgrade, from the start.
        case upgrade
        /// The unfinished upgrade, resumed where each host stopped (done on the leader: these stages).
        case resume(done: [String])
        /// The unfinished upgrade rolled back: the old cluster started again.
        case rollback(done: [String])
        /// The finished upgrade's old release removed: its data directories and packages.
        case cleanup
    }

    public let plan: UpgradePlan
    public let mode: Mode
    /// The extensions the leader's databases hold (empty when resumed: they were checked when it began).
    let extensions: [String]
    let upgraded: ClusterModel
    /// The cluster on the old release, whose data directories and packages a cleanup removes.
    let retired: ClusterModel?

    /// Room a member needs beside its WAL for the new cluster's catalogue and first WAL (pg_upgrade --link shares
    /// the relation files).
    static let headroom = 512 * 1024 * 1024

    /// The upgrade of the cluster `status` shows to major release `target`.
    /// - Throws: ``FlowError`` naming what stands in the way.
    public init(to target: Int, survey: UpgradeSurvey, status: ClusterStatus, model: ClusterModel) throws(FlowError) {
        try status.refuseUnlessHealthy(model, because: "an upgrade starts from a healthy cluster")
        let leader = try status.leader()
        let from = model.postgresVersion
        for host in model.databaseHosts {
            guard let running = survey.members[host]?.major else {
                throw FlowError(
                    "\(host)'s PostgreSQL does not say its release", hint: "see keel status (nothing was changed)")
            }
            if running != from {
                throw FlowError(
                    "\(host) runs PostgreSQL \(running), the inventory says \(from) (postgresql_version)",
                    hint: running == target
                        ? "it is upgraded already: set postgresql_version: \(target) (nothing was changed)"
                        : "set postgresql_version to the release the cluster runs (nothing was changed)")
            }
        }
        guard target > from else {
            throw FlowError(
                "--to \(target) is not newer than the running PostgreSQL \(from)",
                hint: "name a newer major release (nothing was changed)")
        }
        guard (10...18).contains(target), target == 15 || model.pgdg != nil else {
            throw FlowError(
                "PostgreSQL \(target) is not a release Keel can install here",
                hint: model.pgdg == nil
                    ? "Debian 12 packages PostgreSQL 15 only: set pgdg_repository: true (nothing was changed)"
                    : "name a release from 10 to 18 (nothing was changed)")
        }
        if survey.preparedTransactions > 0 {
            throw FlowError(
                "\(survey.preparedTransactions) prepared transaction(s) wait on \(leader): pg_upgrade refuses them",
                hint:
                    "COMMIT PREPARED or ROLLBACK PREPARED them (pg_prepared_xacts), then run again; nothing was changed"
            )
        }
        if survey.tablespaces > 0 {
            throw FlowError(
                "\(survey.tablespaces) tablespace(s) besides pg_default and pg_global: keel upgrade does not move "
                    + "tablespaces yet (their directories per release, the replicas' copies, the cleanup)",
                hint: "move their objects to pg_default and drop them, or upgrade by hand; nothing was changed")
        }
        try status.refuseLagging(model)
        for host in model.databaseHosts {
            guard let member = survey.members[host] else { continue }
            if member.freeBytes < member.walBytes + Self.headroom {
                throw FlowError(
                    "\(host) has \(member.freeBytes / 1_048_576) MiB free beside its data directory; the upgraded "
                        + "cluster needs \((member.walBytes + Self.headroom) / 1_048_576) MiB (its WAL and catalogue)",
                    hint: "free some space there, then run again; nothing was changed")
            }
        }
        plan = UpgradePlan(cluster: model.name, from: from, to: target, leader: leader, planned: .now)
        mode = .upgrade
        extensions = survey.extensions
        upgraded = try model.upgraded(to: target)
        retired = nil
    }

    /// The unfinished upgrade `plan`, which the leader's journal shows done as far as `done`: resumed, or rolled
    /// back when `rollback` (refused once the new leader began to start: its old data directory is the new one's).
    /// - Throws: ``FlowError`` when the inventory names another release than the one upgraded from, or the
    ///   rollback comes too late.
    public init(resuming plan: UpgradePlan, done: JournalRecord, rollback: Bool, model: ClusterModel)
        throws(FlowError)
    {
        guard model.postgresVersion == plan.from else {
            throw FlowError(
                "an upgrade from PostgreSQL \(plan.from) to \(plan.to) is under way; the inventory says "
                    + "postgresql_version: \(model.postgresVersion)",
                hint: "set postgresql_version: \(plan.from) until it is finished, then \(plan.to)")
        }
        if rollback && done.began(UpgradePlan.started) {
            throw FlowError(
                "the upgrade is past its point of no return: PostgreSQL \(plan.to) started on \(plan.leader), whose "
                    + "\(plan.from) data directory it shares (pg_upgrade --link)",
                hint: "finish it (keel upgrade --to \(plan.to)); to go back to \(plan.from), restore the last backup "
                    + "taken before the upgrade into a cluster on \(plan.from)")
        }
        self.plan = plan
        mode = rollback ? .rollback(done: done.stages) : .resume(done: done.stages)
        extensions = []
        upgraded = try model.upgraded(to: plan.to)
        retired = nil
    }

    /// The old release of the finished upgrade `plan` removed from the cluster, which `model` describes on the new
    /// release.
    /// - Throws: ``FlowError`` when the inventory does not name the new release yet.
    public init(cleaningUp plan: UpgradePlan, model: ClusterModel) throws(FlowError) {
        guard model.postgresVersion == plan.to else {
            throw FlowError(
                "the cluster was upgraded to PostgreSQL \(plan.to); the inventory says postgresql_version: "
                    + "\(model.postgresVersion)",
                hint: "set postgresql_version: \(plan.to) (keel deploy then changes nothing), then clean up")
        }
        self.plan = plan
        mode = .cleanup
        extensions = []
        upgraded = model
        retired = try model.upgraded(to: plan.from)
    }

    /// The upgrade planned from the hosts' journals and, when none is under way, from what the members and the
    /// running cluster say now. `target` nil is only for `rollback` and `cleanup`.
    public static func planned(
        to target: Int?, rollback: Bool, cleanup: Bool = false, model: ClusterModel, inventory: Inventory,
        fleet: Fleet
    ) async throws -> UpgradeFlow {
        let newest = try await recorded(model, inventory: inventory, fleet: fleet)
        if cleanup {
            guard let (plan, record) = newest, record.isFinished else {
                throw FlowError(
                    "no finished upgrade is recorded on the members: nothing to clean up",
                    hint: newest == nil ? "see keel status" : "finish the upgrade first (keel upgrade --to N)")
            }
            return try UpgradeFlow(cleaningUp: plan, model: model)
        }
        if let (plan, record) = newest, record.isUnfinished {
            if let target, target != plan.to {
                throw FlowError(
                    "an upgrade to PostgreSQL \(plan.to) is under way (done on \(plan.leader): \(record.done))",
                    hint: "finish it (keel upgrade --to \(plan.to)) or roll it back (keel upgrade --rollback)")
            }
            return try UpgradeFlow(resuming: plan, done: record, rollback: rollback, model: model)
        }
        guard !rollback else {
            throw FlowError("no upgrade is under way: nothing to roll back", hint: "see keel status")
        }
        guard let target else {
            throw FlowError("keel upgrade needs --to N, the release to upgrade to", hint: "as keel upgrade --to 17")
        }
        let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
        let survey = try await UpgradeSurvey.read(
            model, leader: try status.leader(), inventory: inventory, fleet: fleet)
        return try UpgradeFlow(to: target, survey: survey, status: status, model: model)
    }

    /// The newest upgrade of this cluster the members recorded, with the leader's record of it (unfinished when
    /// any member's is).
    /// - Throws: ``FlowError`` when a member cannot be read (its journal could hold one).
    private static func recorded(_ model: ClusterModel, inventory: Inventory, fleet: Fleet) async throws
        -> (UpgradePlan, JournalRecord)?
    {
        let hosts = model.databaseHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { _, transport in
            try await transport.run(JournalRecord.readAll, timeout: .seconds(10)).stdoutText
        }
        var recorded: [String: (record: JournalRecord, plan: UpgradePlan)] = [:]
        for (host, outcome) in zip(hosts, outcomes) {
            switch outcome {
            case .done(let text, _): recorded[host] = UpgradePlan.recorded(text)
            case .unreachable(let error), .failed(let error):
                throw FlowError(
                    "\(host)'s journal could not be read: \(error)", hint: "an upgrade may be under way there")
            }
        }
        let mine = recorded.values.filter { $0.plan.cluster == model.name }
        guard let newest = mine.max(by: { $0.plan.planned < $1.plan.planned }) else { return nil }
        let same = mine.filter { $0.plan == newest.plan }.map(\.record)
        let leaders = recorded[newest.plan.leader].flatMap { $0.plan == newest.plan ? $0.record : nil }
        // The leader's record, unless another member's says the upgrade is unfinished where the leader's does not.
        let record =
            leaders.flatMap { $0.isUnfinished ? $0 : nil } ?? same.first(where: \.isUnfinished) ?? leaders
            ?? newest.record
        return (newest.plan, record)
    }

    public var confirmations: [FlowConfirmation] { [.clusterName] }

    public func plan(_ model: ClusterModel) -> String? {
        let (from, to, leader) = (plan.from, plan.to, plan.leader)
        let replicas = model.databaseHosts.filter { $0 != leader }
        let pools = model.balancerPoolers.isEmpty ? nil : model.balancerPoolers.joined(separator: ", ")
        switch mode {
        case .cleanup:
            return [
                "upgrade --cleanup will, on cluster \(model.name) (upgraded from PostgreSQL \(from) to \(to), "
                    + "\(plan.planned.formatted(.iso8601))):",
                "  on \(model.databaseHosts.joined(separator: ", ")): \(retired?.dataDirectory ?? "") deleted (the \(from) "
                    + "data directory; on \(leader) its files are \(to)'s too, which keeps them), "
                    + "postgresql-\(from) and postgresql-client-\(from) removed (apt-get remove)",
                "  the repository's backups of \(from) stay until their retention expires them",
            ].joined(separator: "\n") + "\n\n"
        case .rollback(let done):
            return [
                "upgrade will roll back the unfinished upgrade of cluster \(model.name) to \(to) (done on \(leader): "
                    + "\(done.isEmpty ? "nothing yet" : done.joined(separator: ", "))):",
                "  on \(leader): \(model.dataDirectory) whole again (its pg_control back), \(upgraded.dataDirectory) "
                    + "removed; patroni.yml and pgbackrest.conf for \(from) on every host",
                "  patroni started on \(leader) (the leader, on PostgreSQL \(from)), then on "
                    + "\(replicas.joined(separator: ", ")) (their data directories were not touched)",
            ].joined(separator: "\n") + "\n\n"
        case .upgrade, .resume:
            let extensions = self.extensions.isEmpty ? "" : " (\(self.extensions.joined(separator: ", ")))"
            var lines = [
                "upgrade will, on cluster \(model.name) (PostgreSQL \(from) → \(to)):",
                "  first, the running cluster untouched:",
                "    on \(model.databaseHosts.joined(separator: ", ")): \(PostgresPackages.server(upgraded)) and its "
                    + "client installed beside \(from); every extension\(extensions) available in \(to)",
                "    on \(leader) (the leader): a new cluster initialized in \(upgraded.dataDirectory) like the "
                    + "running one, and pg_upgrade --check against it",
                "  then the upgrade:",
                "    patroni and postgresql stopped on \(replicas.joined(separator: ", ")) (reads through the "
                    + "replicas fail until they are back)",
            ]
            if let pools {
                lines.append(
                    "    PgBouncer paused on \(pools): clients wait (resumed after \(UpgradePlays.pauseBound) s at "
                        + "most, whatever happens)")
            }
            lines += [
                "    on \(leader): a CHECKPOINT, patroni and postgresql stopped (writes stop here), pg_upgrade --link "
                    + "into \(upgraded.dataDirectory) (the data files shared, not copied)",
                "    patroni.yml and pgbackrest.conf for \(to) on every host; the cluster's keys in etcd reset",
                "    patroni started on \(leader) on PostgreSQL \(to) — THE POINT OF NO RETURN: until here, keel upgrade "
                    + "--rollback brings \(from) back as it was (a run that fails stops and says so); after it, going back means restoring "
                    + "the last backup of \(from) (the repository keeps them)",
            ]
            if let pools { lines.append("    PgBouncer resumed on \(pools) (writes go on)") }
            lines += [
                "    \(replicas.joined(separator: ", ")) cloned afresh from \(leader) into \(upgraded.dataDirectory) "
                    + "(the whole database copied over the network), one leader and two replicas again",
                model.backups == nil
                    ? "    no backups to upgrade (pgbackrest_install is false)"
                    : "    pgbackrest stanza-upgrade, a check and a full backup of \(to)",
                "    statistics rebuilt on \(leader) (vacuumdb --all --analyze-in-stages); the cluster's parameters "
                    + "applied",
                "  kept: the \(from) data directories (\(model.dataDirectory)) and packages on every member",
                "  then set postgresql_version: \(to) in the inventory: keel deploy changes nothing",
            ]
            if case .resume(let done) = mode {
                lines.append(
                    "It was begun (\(plan.id)): resuming after \(done.isEmpty ? "nothing yet" : done.joined(separator: ", ")) "
                        + "on \(leader).")
            }
            return lines.joined(separator: "\n") + "\n\n"
        }
    }

    public func playbook(_ model: ClusterModel, patroniWheel: [UInt8]) -> Playbook {
        let plays = UpgradePlays(plan: plan, model: model, upgraded: upgraded)
        return Playbook(Self.name, summary: Self.summary, become: true) {
            switch mode {
            case .cleanup: retired.map(UpgradePlays.cleanup) ?? []
            case .rollback: plays.rollback()
            case .upgrade, .resume:
                plays.prepared(extensions: extensions)
                plays.upgrade()
            }
        }
        .stoppingAtFirstFailure()
    }
}
