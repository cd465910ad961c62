import Keel

/// The leader's part of a restore, each stage recorded in the journal (``JournalStage``): pgBackRest's delta restore of the
/// chosen set, recovery to the target run by hand outside Patroni (which would strip the recovery settings) and
/// checked (promoted, on a new timeline, stopped where the target says, its WAL archived), the cluster's keys
/// deleted from etcd, then Patroni started on the restored data, which it takes over as the leader.
struct RestoreRecovery: Role {
    let model: ClusterModel
    let plan: RestorePlan

    /// Where PostgreSQL, run by hand, logs its recovery.
    static let log = "/var/log/postgresql/keel-restore.log"

    var steps: [Step] {
        let backups = model.backups!
        let postgres = PostgresControl(model)
        let restore = PgBackRest(backups, as: "postgres")(
            "--delta --archive-mode=preserve --log-level-console=warn restore "
                + plan.target.restoreOptions(set: plan.set.label))
        plan.stage(
            RestoreProgress.restored,
            "data directory restored from \(plan.set.label) (pgBackRest delta)",
            command: "\(postgres.stopped) && \(restore)", timeout: model.limits.dataCopyTimeout)
        plan.stage(
            "promoted", "recovered \(plan.target.description), promoted, checked",
            command: recovered(postgres), timeout: model.limits.dataCopyTimeout)
        plan.stage(
            "dcs-cleared", "cluster keys deleted from etcd (\(model.dcsPrefix))",
            command: Etcdctl(model, client: .patroni)("del --prefix \(model.dcsPrefix)") + " >/dev/null")
        // patroni.dynamic.json came with the backup: Patroni would seed the configuration from it.
        plan.stage(
            RestoreProgress.leading, "patroni started on the restored data",
            command: "\(PostgresControl.asPostgres("rm -f \(model.dataDirectory + "/patroni.dynamic.json")")) && "
                + "systemctl enable --now patroni")
    }

    /// Starts PostgreSQL by hand (unless a killed run left it promoted), waits until recovery has ended with a
    /// promotion, checks it, clears the recovery settings pgBackRest wrote, waits for the new timeline's WAL to be
    /// archived, and stops it.
    private func recovered(_ postgres: PostgresControl) -> ShellCommand {
        let log = Self.log
        let patience = Int(model.limits.dataCopyTimeout.components.seconds / 2)
        // The log is postgres's, in postgres's folder: read as postgres (PostgresControl.asPostgres).
        func fail(_ message: String) -> ShellCommand {
            "{ echo \(message) >&2; \(PostgresControl.asPostgres("tail -n 20 \(log)")) >&2; exit 1; }"
        }
        func logged(_ line: String) -> ShellCommand { PostgresControl.asPostgres("grep -q \(line) \(log)") }
        let timelineSQL = "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"
        var checks: [ShellCommand] = [
            "tl=$(\(model.postgres.run(timelineSQL)))",
            "\(logged("selected new timeline ID")) || \(fail("PostgreSQL did not start a new timeline"))",
        ]
        if let timeline = plan.timeline {
            checks.append(
                "[ $((0x$tl)) -gt \(timeline) ] || \(fail("PostgreSQL runs an old timeline, not one after \(timeline)"))"
            )
        }
        if plan.target != .latest {
            checks.append("\(logged("recovery stopping")) || \(fail("recovery did not stop at the target"))")
        }
        let settings = [
            "restore_command", "recovery_target", "recovery_target_time", "recovery_target_action",
            "recovery_target_timeline",
        ]
        let ready = "SELECT count(*) FROM pg_ls_dir('pg_wal/archive_status') AS f WHERE f LIKE '%.ready'"
        let inRecovery: ShellCommand = "[ \"$(\(model.postgres.run("SELECT pg_is_in_recovery()")) 2>/dev/null)\" != f ]"
        // A PostgreSQL left recovering by a killed run is started again with these settings; a promoted one stays.
        // Its log starts empty (written as postgres, whose directory it is), so that the checks below read this
        // recovery's lines, never an earlier restore's.
        let emptied: ShellCommand = ": > \(log)"
        let started: ShellCommand =
            "{ ! \(postgres.running) || ! \(inRecovery) || \(postgres.stopped); } && "
            + "{ \(postgres.running) || { \(PostgresControl.asPostgres(emptied)) && \(postgres.startRecovery(log: log)); }; }"
        let promoted: ShellCommand =
            "i=0; while \(inRecovery); do sleep 2; "
            + "\(postgres.running) || \(fail("PostgreSQL stopped before the recovery was complete")); "
            + "i=$((i + 1)); [ $i -lt \(patience) ] || \(fail("still recovering")); done"
        let reset = settings.map { model.postgres.run("ALTER SYSTEM RESET \($0)") + " >/dev/null" }
        let archivedAll: ShellCommand =
            "i=0; until [ \"$(\(model.postgres.run(ready)))\" = 0 ]; do "
            + "i=$((i + 1)); [ $i -lt 120 ] || \(fail("the new timeline's WAL is not archived after 120 s")); "
            + "sleep 1; done"
        let checkpoint = model.postgres.run("CHECKPOINT") + " >/dev/null"
        let steps: [ShellCommand] = [started, promoted] + checks + reset + [checkpoint, archivedAll, postgres.stopped]
        return steps.joined(separator: " &&\n")
    }
}
