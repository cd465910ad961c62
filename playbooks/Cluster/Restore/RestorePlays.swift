import Keel

/// The plays of a restore (`keel restore`), each stage recorded on its host (``JournalStage``) so that a run killed
/// at any step resumes where it stopped.
struct RestorePlays {
    let plan: RestorePlan
    let model: ClusterModel

    private var backups: ClusterModel.Backups { model.backups! }
    private var others: [String] { model.databaseHosts.filter { $0 != plan.restoreHost } }
    private var leader: String { model.pattern([plan.restoreHost]) }

    /// The plan recorded on every member and the repository host (`marked`), in place of the unfinished restore
    /// `replacing` when there is one.
    func begun(marked: [String], replacing: String?) -> Play {
        Play("restore begun", on: model.pattern(marked), anyErrorsFatal: true) { _ in
            plan.begun(replacing: replacing)
        }
    }

    /// Patroni stopped on the replicas, then on the leader once its last commits are archived.
    func stopped() -> [Play] {
        [
            Play("patroni stopped on the replicas", on: model.pattern(others)) { _ in stopped(leader: false) },
            Play("patroni stopped on the leader", on: leader) { _ in stopped(leader: true) },
        ]
    }

    /// The leader restored and recovered outside Patroni, then leading with the restored data and the model's
    /// configuration.
    func recovered() -> [Play] {
        [
            Play("restored from the repository", on: leader) { host in
                RestoreRecovery(model: model, plan: plan).steps
                PatroniPlays.leading(model, host: host.name)
            },
            Play("cluster configuration after the restore", on: leader) { host in
                PatroniDynamicConfig(model: model, host: host.name)
                PendingRestart(model: model, host: host.name)
            },
        ]
    }

    /// The other members wiped and cloned from the restored leader, each streaming and caught up.
    func replicasCloned() -> Play {
        Play("replicas cloned from the restored leader", on: model.pattern(others)) { host in
            plan.stage(
                "cloned", "data directory emptied, cloned from \(plan.restoreHost)",
                command: MemberCloned(model: model).command(after: "systemctl stop patroni"))
            MemberCloned(model: model).settled(host.name)
        }
    }

    /// A check of the repository and a full backup of the new timeline.
    func backedUp() -> Play {
        Play("a full backup of the new timeline", on: backups.repositoryHost ?? plan.restoreHost) { _ in
            let pgbackrest = PgBackRest(backups)
            plan.stage(
                "backed-up", "pgbackrest check, then a full backup",
                command: "\(pgbackrest("check")) && \(pgbackrest("--type=full backup"))",
                timeout: model.limits.dataCopyTimeout)
        }
    }

    /// The restore recorded as finished everywhere: a rerun changes nothing.
    func finished(marked: [String]) -> Play {
        Play("restore finished", on: model.pattern(marked)) { _ in
            JournalStage.finished(flow: RestoreProgress.flow, id: plan.id)
        }
    }

    /// The plan's restore given up before any data was replaced: Patroni (and PgBouncer) started again on every
    /// member, where the restore had stopped them, and the restore recorded as abandoned.
    func abandoned(marked: [String]) -> Play {
        Play("restore abandoned", on: model.pattern(marked), anyErrorsFatal: true) { host in
            plan.begun(replacing: plan.id)
            plan.stage(
                JournalRecord.abandoned, "patroni started again, restore abandoned",
                command: model.databaseHosts.contains(host.name)
                    ? "systemctl enable --now patroni" + (model.pgbouncer != nil ? " && systemctl start pgbouncer" : "")
                    : "true")
        }
    }

    /// Patroni, and with it PostgreSQL, stopped and kept from starting at boot, and PgBouncer stopped: no client
    /// reaches the member until it serves the restored data. The `leader` first commits, switches its WAL and waits
    /// until the archiver has archived the switched segment: every commit until then is in the archive.
    private func stopped(leader: Bool) -> JournalStage {
        let postgres = PostgresControl(model)
        let stop: ShellCommand =
            "systemctl disable --now patroni\(raw: model.pgbouncer != nil ? " && systemctl stop pgbouncer" : "") "
            + "&& \(postgres.stopped)"
        return plan.stage(
            "stopped",
            (leader ? "WAL archived, " : "") + (model.pgbouncer == nil ? "patroni" : "patroni and pgbouncer")
                + " stopped",
            command: leader ? Self.archived(model) + " && " + stop : stop)
    }

    /// On the leader, while its PostgreSQL runs as the primary: a commit (so that recovery to any earlier moment
    /// has a commit after it to stop at), a WAL switch, and the archiver's word that it archived the switched
    /// segment (within 60 s). Where PostgreSQL no longer runs as the primary (a resumed restore), nothing.
    private static func archived(_ model: ClusterModel) -> ShellCommand {
        let primary: ShellCommand = "[ \"$(\(model.postgres.run("SELECT pg_is_in_recovery()")) 2>/dev/null)\" = f ]"
        let switched = "SELECT pg_walfile_name(pg_switch_wal())"
        // The segment's name (hex digits, from PostgreSQL) goes into the query between its quotes.
        let query = "SELECT last_archived_wal >= '%s' FROM pg_stat_archiver\\n"
        let done: ShellCommand = "printf \(query) \"$s\" | \(model.postgres.psql())"
        let archived = Poll(
            until: "[ \"$(\(done))\" = t ]", seconds: 60,
            onTimeout: .fail("the segment switched to was not archived within 60 s"))
        return "{ ! \(primary) || { \(model.postgres.run("SELECT txid_current()")) >/dev/null && "
            + "s=$(\(model.postgres.run(switched))) && \(archived.command); }; }"
    }
}
