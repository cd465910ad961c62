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
        /// The upgrade past its point of no return rolled back: the old release started from the kept replica.
        case rollbackFromKept
        /// The kept replica cloned on the new release, and the upgrade recorded as finished.
        case finish
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
    /// `keep`: a replica kept on the old release until `--finish`.
    public init(
        to target: Int, keeping keep: String? = nil, survey: UpgradeSurvey, status: ClusterStatus, model: ClusterModel
    ) throws(FlowError) {
        try status.refuseUnlessHealthy(model, because: "an upgrade starts from a healthy cluster")
        let leader = try status.leader()
        if let keep, !model.databaseHosts.contains(keep) || keep == leader {
            throw FlowError(
                "--keep-replica \(keep) is not a replica of the cluster (the leader is \(leader))",
                hint:
                    "name one of \(model.databaseHosts.filter { $0 != leader }.joined(separator: ", ")) (nothing was changed)"
            )
        }
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
            if let planted = member.plantedLinks.first {
                throw FlowError(
                    "\(host): \(planted) is a link; keel upgrade writes it as postgres, and anyone who runs code as "
                        + "postgres (any database superuser) can plant one to a file of root's",
                    hint: "find who made it (ls -l \(planted)), remove it, then run again; nothing was changed")
            }
            if member.freeBytes < member.walBytes + Self.headroom {
                throw FlowError(
                    "\(host) has \(member.freeBytes / 1_048_576) MiB free beside its data directory; the upgraded "
                        + "cluster needs \((member.walBytes + Self.headroom) / 1_048_576) MiB (its WAL and catalogue)",
                    hint: "free some space there, then run again; nothing was changed")
            }
        }
        plan = UpgradePlan(cluster: model.name, from: from, to: target, leader: leader, kept: keep, planned: .now)
        mode = .upgrade
        extensions = survey.extensions
        upgraded = try model.upgraded(to: target)
        retired = nil
    }

    /// The unfinished upgrade `plan`, which the leader's journal shows done as far as `done` (and the kept
    /// replica's as far as `kept`): resumed, finished (`finish`), or rolled back when `rollback` — past the point of
    /// no return (the new leader began to start: its old data directory is the new one's) only from a kept replica
    /// not yet cloned.
    /// - Throws: ``FlowError`` when the inventory names another release than the one upgraded from, or the
    ///   rollback comes too late, or the finish too early.
    public init(
        resuming plan: UpgradePlan, done: JournalRecord, kept: JournalRecord? = nil, rollback: Bool,
        finish: Bool = false, model: ClusterModel
    ) throws(FlowError) {
        guard model.postgresVersion == plan.from else {
            throw FlowError(
                "an upgrade from PostgreSQL \(plan.from) to \(plan.to) is under way; the inventory says "
                    + "postgresql_version: \(model.postgresVersion)",
                hint: "set postgresql_version: \(plan.from) until it is finished, then \(plan.to)")
        }
        let pastReturn = done.began(UpgradePlan.started)
        let keptWhole = plan.kept != nil && kept?.began(UpgradePlan.keptCloned) != true
        if finish {
            guard plan.kept != nil, done.began(UpgradePlan.awaitingFinish) else {
                throw FlowError(
                    plan.kept == nil
                        ? "the upgrade to PostgreSQL \(plan.to) keeps no replica: there is nothing to finish"
                        : "the upgrade to PostgreSQL \(plan.to) has not gone through yet (done on \(plan.leader): "
                            + "\(done.done))",
                    hint: "run keel upgrade --to \(plan.to) (nothing was changed)")
            }
            mode = .finish
        } else if rollback && pastReturn {
            guard keptWhole else {
                throw FlowError(
                    "the upgrade is past its point of no return: PostgreSQL \(plan.to) started on \(plan.leader), "
                        + "whose \(plan.from) data directory it shares (pg_upgrade --link)"
                        + (plan.kept.map { ", and \($0), the kept replica, is being cloned on \(plan.to)" } ?? ""),
                    hint:
                        "finish it (keel upgrade --to \(plan.to)); to go back to \(plan.from), restore the last backup "
                        + "taken before the upgrade into a cluster on \(plan.from)")
            }
            mode = .rollbackFromKept
        } else {
            mode = rollback ? .rollback(done: done.stages) : .resume(done: done.stages)
        }
        self.plan = plan
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

    /// What the operator asked of `keel upgrade`.
    public enum Request: Sendable, Equatable {
        /// The upgrade to release `to` (begun, or resumed), keeping the replica `keeping` until ``finish``.
        case upgrade(to: Int, keeping: String? = nil)
        /// The unfinished upgrade rolled back.
        case rollback
        /// The kept replica upgraded, and the upgrade finished.
        case finish
        /// The finished upgrade's old release removed.
        case cleanup
    }

    /// The upgrade planned from the hosts' journals and, when none is under way, from what the members and the
    /// running cluster say now.
    public static func planned(_ request: Request, model: ClusterModel, inventory: Inventory, fleet: Fleet)
        async throws -> UpgradeFlow
    {
        let newest = try await recorded(model, inventory: inventory, fleet: fleet)
        if request == .cleanup {
            guard let newest, newest.record.isFinished else {
                throw FlowError(
                    "no finished upgrade is recorded on the members: nothing to clean up",
                    hint: newest == nil ? "see keel status" : "finish the upgrade first (keel upgrade --to N)")
            }
            return try UpgradeFlow(cleaningUp: newest.plan, model: model)
        }
        if let newest, newest.record.isUnfinished {
            let plan = newest.plan
            if case .upgrade(let target, let keep) = request, target != plan.to || (keep != nil && keep != plan.kept) {
                throw FlowError(
                    "an upgrade to PostgreSQL \(plan.to)\(plan.kept.map { " keeping \($0)" } ?? "") is under way "
                        + "(done on \(plan.leader): \(newest.record.done))",
                    hint: "finish it (keel upgrade --to \(plan.to)) or roll it back (keel upgrade --rollback)")
            }
            // Only the leader records the point of no return: a rollback judged from another member's record could
            // delete a new cluster that took writes.
            if request == .rollback, !newest.leaderRecorded {
                throw FlowError(
                    "\(plan.leader), where pg_upgrade ran, holds no record of the upgrade to PostgreSQL \(plan.to): "
                        + "whether its new cluster started (the point of no return) cannot be told",
                    hint: "keel upgrade --to \(plan.to) finishes it; nothing was changed")
            }
            return try UpgradeFlow(
                resuming: plan, done: newest.record, kept: newest.kept, rollback: request == .rollback,
                finish: request == .finish, model: model)
        }
        guard case .upgrade(let target, let keep) = request else {
            throw FlowError(
                "no upgrade is under way: nothing to \(request == .finish ? "finish" : "roll back")",
                hint: "see keel status")
        }
        let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
        let survey = try await UpgradeSurvey.read(
            model, leader: try status.leader(), inventory: inventory, fleet: fleet)
        return try UpgradeFlow(to: target, keeping: keep, survey: survey, status: status, model: model)
    }

    /// The newest upgrade of this cluster the members recorded, with the leader's record of it (unfinished when
    /// any member's is), the kept replica's, and whether the leader recorded it itself.
    /// - Throws: ``FlowError`` when a member cannot be read (its journal could hold one).
    private static func recorded(_ model: ClusterModel, inventory: Inventory, fleet: Fleet) async throws
        -> (plan: UpgradePlan, record: JournalRecord, kept: JournalRecord?, leaderRecorded: Bool)?
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
        let of = { (host: String?) in host.flatMap { recorded[$0] }.flatMap { $0.plan == newest.plan ? $0.record : nil }
        }
        let leaders = of(newest.plan.leader)
        // The leader's record, unless another member's says the upgrade is unfinished where the leader's does not.
        let record =
            leaders.flatMap { $0.isUnfinished ? $0 : nil } ?? same.first(where: \.isUnfinished) ?? leaders
            ?? newest.record
        return (newest.plan, record, of(newest.plan.kept), leaders != nil)
    }

    public var confirmations: [FlowConfirmation] { [.clusterName] }

    public func readiness(_ model: ClusterModel) -> HostReadiness? { .databaseAndRepository(model) }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let plays = UpgradePlays(plan: plan, model: model, upgraded: upgraded)
        return Playbook(Self.name, summary: Self.summary, become: true) {
            switch mode {
            case .cleanup: retired.map(UpgradePlays.cleanup) ?? []
            case .rollback: plays.rollback()
            case .rollbackFromKept: plays.rollbackFromKept()
            case .finish: plays.finish()
            case .upgrade, .resume:
                plays.prepared(extensions: extensions)
                plays.upgrade()
            }
        }
        .stoppingAtFirstFailure()
    }
}
