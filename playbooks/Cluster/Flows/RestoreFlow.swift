import Keel

/// Restores the cluster to a moment, or a backup set, from the pgBackRest repository, as ``RestorePlan`` says:
/// Patroni stopped on every member (the replicas first), the leader restored and recovered outside Patroni
/// until it is promoted on a new timeline (checked, and its archiving with it), the cluster's keys in etcd deleted,
/// Patroni started on it so that it leads with the restored data, the configuration put back from the model, the
/// other members wiped and cloned from it, the roles' passwords set again, and a new full backup taken. Each stage
/// is recorded on its host (``RestoreProgress``): a run killed at any step resumes, and a finished one changes
/// nothing.
public struct RestoreFlow: ClusterFlow, Sendable {
    public static let name = "restore"
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

    public func plan(_ model: ClusterModel) -> String? {
        guard case .abandon = mode else { return plan.text + journalNote }
        return "restore will abandon the unfinished \(plan.id) \(journalNote): start Patroni"
            + "\(model.pgbouncer ? " and PgBouncer" : "") again on \(model.databaseHosts.joined(separator: ", ")); "
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

    public func playbook(_ model: ClusterModel, patroniWheel: [UInt8]) -> Playbook {
        let backups = model.backups!
        let marked = model.databaseHosts + (backups.repositoryHost.map { [$0] } ?? [])
        switch mode {
        case .nothing: return Playbook(Self.name, summary: Self.summary) {}
        case .abandon: return abandoned(model, marked: marked)
        case .restore: return restored(model, marked: marked, replacing: nil)
        case .replacing(let id): return restored(model, marked: marked, replacing: id)
        }
    }

    /// The plan's restore given up before any data was replaced: Patroni (and PgBouncer) started again on every
    /// member, where the restore had stopped them, and the restore recorded as abandoned.
    private func abandoned(_ model: ClusterModel, marked: [String]) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            Play("restore abandoned", on: model.pattern(marked), anyErrorsFatal: true) { host in
                RestoreBegun(plan: plan, replaces: plan.id)
                RestoreStage(
                    plan: plan, stage: RestoreProgress.abandoned, summary: "patroni started again, restore abandoned",
                    command: model.databaseHosts.contains(host.name)
                        ? "systemctl enable --now patroni" + (model.pgbouncer ? " && systemctl start pgbouncer" : "")
                        : "true")
            }
            PatroniPlays.inService(model)
        }
    }

    private func restored(_ model: ClusterModel, marked: [String], replacing: String?) -> Playbook {
        let backups = model.backups!
        let backupHost = backups.repositoryHost ?? plan.restoreHost
        let others = model.databaseHosts.filter { $0 != plan.restoreHost }
        let leader = [plan.restoreHost]
        return Playbook(Self.name, summary: Self.summary, become: true) {
            Play("restore begun", on: model.pattern(marked), anyErrorsFatal: true) { _ in
                RestoreBegun(plan: plan, replaces: replacing)
            }
            Play("patroni stopped on the replicas", on: model.pattern(others)) { _ in stopped(model) }
            Play("patroni stopped on the leader", on: model.pattern(leader)) { _ in stopped(model, leader: true) }
            Play("restored from the repository", on: model.pattern(leader)) { host in
                RestoreRecovery(model: model, plan: plan).steps
                PatroniPlays.leading(model, host: host.name)
            }
            Play("cluster configuration after the restore", on: model.pattern(leader)) { host in
                PatroniDynamicConfig(model: model, host: host.name)
                PendingRestart(model: model, host: host.name)
            }
            Play("replicas cloned from the restored leader", on: model.pattern(others)) { host in
                RestoreStage(
                    plan: plan, stage: "cloned", summary: "data directory emptied, cloned from \(plan.restoreHost)",
                    command: "systemctl stop patroni && find \(shellQuote(model.dataDirectory)) -mindepth 1 -delete "
                        + "&& systemctl enable --now patroni")
                MemberInService(model: model, host: host.name).steps
                WaitFor(
                    .command(PatroniAPI(model, member: host.name).caughtUp(model), what: "streaming, caught up"),
                    timeout: model.dataCopyTimeout)
            }
            PostgreSQLPlays.databaseObjects(model)
            PgBouncerPlays.poolers(model)
            PatroniPlays.inService(model)
            Play("a full backup of the new timeline", on: backupHost) { _ in
                let pgbackrest = PgBackRest(backups)
                RestoreStage(
                    plan: plan, stage: "backed-up", summary: "pgbackrest check, then a full backup",
                    command: "\(pgbackrest("check")) && \(pgbackrest("--type=full backup"))",
                    timeout: model.dataCopyTimeout)
            }
            Play("restore finished", on: model.pattern(marked)) { _ in
                RestoreStage(
                    plan: plan, stage: RestoreProgress.finished, summary: "recorded as finished", command: "true")
            }
        }
        .stoppingAtFirstFailure()
    }

    /// Patroni, and with it PostgreSQL, stopped and kept from starting at boot, and PgBouncer stopped: no client
    /// reaches the member until it serves the restored data. The `leader` first commits, switches its WAL and waits
    /// until the archiver has archived the switched segment: every commit until then is in the archive.
    private func stopped(_ model: ClusterModel, leader: Bool = false) -> RestoreStage {
        let postgres = PostgresControl(model)
        let stop =
            "systemctl disable --now patroni" + (model.pgbouncer ? " && systemctl stop pgbouncer" : "")
            + " && \(postgres.stopped)"
        return RestoreStage(
            plan: plan, stage: "stopped",
            summary: (leader ? "WAL archived, " : "") + "patroni\(model.pgbouncer ? " and pgbouncer" : "") stopped",
            command: leader ? Self.archived(model) + " && " + stop : stop)
    }

    /// On the leader, while its PostgreSQL runs as the primary: a commit (so that recovery to any earlier moment
    /// has a commit after it to stop at), a WAL switch, and the archiver's word that it archived the switched
    /// segment (within 60 s). Where PostgreSQL no longer runs as the primary (a resumed restore), nothing.
    private static func archived(_ model: ClusterModel) -> String {
        let primary = "[ \"$(\(model.postgres.run("SELECT pg_is_in_recovery()")) 2>/dev/null)\" = f ]"
        let switched = "SELECT pg_walfile_name(pg_switch_wal())"
        // The segment's name (hex digits, from PostgreSQL) goes into the query between its quotes.
        let done =
            "printf \(shellQuote("SELECT last_archived_wal >= '%s' FROM pg_stat_archiver\\n")) \"$s\" | "
            + model.postgres.psql()
        return """
            { ! \(primary) || { \(model.postgres.run("SELECT txid_current()")) >/dev/null && \
            s=$(\(model.postgres.run(switched))) && \
            \(Poll(until: "[ \"$(\(done))\" = t ]", seconds: 60, onTimeout: .fail("the segment switched to was not archived within 60 s"))); }; }
            """
    }
}
