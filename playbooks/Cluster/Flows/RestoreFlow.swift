import Keel

/// Restores the cluster to a moment, or a backup set, from the pgBackRest repository, as ``RestorePlan`` says:
/// Patroni stopped on every member (the replicas first), the leader restored and recovered outside Patroni
/// until it is promoted on a new timeline (checked, and its archiving with it), the cluster's keys in etcd deleted,
/// Patroni started on it so that it leads with the restored data, the configuration put back from the model, the
/// other members wiped and cloned from it, the roles' passwords set again, and a new full backup taken. Each stage
/// is recorded on its host (``RestoreProgress``): a run killed at any step resumes, and a finished one changes
/// nothing.
public struct RestoreFlow: ClusterFlow, Sendable {
    public static let name = RestoreProgress.flow
    public static let summary =
        "Restore the cluster to a moment or a backup set from pgBackRest (the cluster's name typed confirms it)."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    /// What the run does with the plan, as ``RestoreJournal`` decided.
    public enum Mode: Sendable {
        /// The restore, from the start or resumed where it stopped.
        case restore
        /// The restore, in place of the unfinished one with this id (a new target for it).
        case replacing(String)
        /// The plan's restore given up: Patroni started again; nothing restored.
        case abandon
        /// Nothing: the restore is finished.
        case nothing
    }

    public let plan: RestorePlan
    public let mode: Mode
    /// What the journal says of the restore planned (resumed, in place of another, finished), after its plan.
    let journalNote: String

    public init(plan: RestorePlan, mode: Mode = .restore, journalNote: String = "") {
        self.plan = plan
        self.mode = mode
        self.journalNote = journalNote
    }

    /// The flow for what ``RestoreJournal`` decided of `plan`.
    public init(plan: RestorePlan, decision: RestoreJournal.Decision) {
        let done = { (progress: RestoreProgress) in
            progress.stages.isEmpty ? "nothing" : progress.stages.joined(separator: ", ")
        }
        switch decision {
        case .new: self.init(plan: plan)
        case .finished:
            self.init(
                plan: plan, mode: .nothing,
                journalNote: "This restore is finished: nothing is left to do (--again restores to it once more).\n")
        case .resume(let progress):
            self.init(
                plan: plan, journalNote: "It was begun: resuming after \(progress.stages.joined(separator: ", ")).\n")
        case .retarget(let unfinished):
            self.init(
                plan: plan, mode: .replacing(unfinished.plan.id),
                journalNote: "It takes the place of the unfinished \(unfinished.plan.id) (done: \(done(unfinished))), "
                    + "which is given up.\n")
        case .abandon(let progress):
            self.init(plan: plan, mode: .abandon, journalNote: "(done: \(done(progress)))")
        }
    }

    public var confirmations: [FlowConfirmation] {
        if case .nothing = mode { return [] }
        return [.clusterName]
    }

    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        if case .nothing = mode { return nil }
        return .databaseAndRepository(model)
    }

    public func plan(_ model: ClusterModel) -> String? {
        guard case .abandon = mode else { return plan.text + journalNote }
        return "restore will abandon the unfinished \(plan.id) \(journalNote): start Patroni"
            + "\(model.pgbouncer != nil ? " and PgBouncer" : "") again on \(model.databaseHosts.joined(separator: ", ")); "
            + "no data is replaced\n"
    }

    public func check(_ model: ClusterModel) throws(FlowError) {
        guard model.backups != nil else {
            throw FlowError("the cluster has no pgBackRest repository", hint: "set pgbackrest_install: true")
        }
        if case .nothing = mode { return }
        guard model.databaseHosts.contains(plan.restoreHost) else {
            throw FlowError(
                "the restore in progress restores \(plan.restoreHost), which is no longer a database host",
                hint: "put it back under [postgres_cluster] until the restore is finished")
        }
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let backups = model.backups!
        let marked = model.databaseAndRepositoryHosts
        switch mode {
        case .nothing: return Playbook(Self.name, summary: Self.summary) {}
        case .abandon:
            return Playbook(Self.name, summary: Self.summary, become: true) {
                RestorePlays(plan: plan, model: model).abandoned(marked: marked)
                PatroniPlays.inService(model)
            }
        case .restore: return restored(model, marked: marked, replacing: nil)
        case .replacing(let id): return restored(model, marked: marked, replacing: id)
        }
    }

    private func restored(_ model: ClusterModel, marked: [String], replacing: String?) -> Playbook {
        let plays = RestorePlays(plan: plan, model: model)
        return Playbook(Self.name, summary: Self.summary, become: true) {
            plays.begun(marked: marked, replacing: replacing)
            plays.stopped()
            plays.recovered()
            plays.replicasCloned()
            PostgreSQLPlays.databaseObjects(model)
            PgBouncerPlays.poolers(model, on: model.databaseHosts)
            PatroniPlays.inService(model)
            plays.backedUp()
            plays.finished(marked: marked)
        }
        .stoppingAtFirstFailure()
    }
}
