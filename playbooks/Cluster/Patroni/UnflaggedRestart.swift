import Keel

/// Has Patroni flag every restart its PostgreSQL waits for, so that the rolling restart (which goes by that flag)
/// misses none. Patroni looks for such settings only when it applies a change with PostgreSQL running: a change
/// that reached a member while its PostgreSQL was starting is written to postgresql.conf but never flagged, until
/// some later reload of Patroni finds it. Keel asks PostgreSQL itself (`pg_settings.pending_restart`, and
/// `pg_file_settings` for a file it has not read yet) and, where Patroni disagrees, reloads Patroni, which then
/// reloads PostgreSQL and flags what waits.
struct UnflaggedRestart: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "Patroni flags every restart PostgreSQL waits for" }

    /// Settings Patroni leaves out of its own check (recovery settings and `hot_standby`, which it manages).
    static let unchecked = [
        "hot_standby", "primary_conninfo", "primary_slot_name", "restore_command", "archive_cleanup_command",
        "recovery_end_command", "recovery_min_apply_delay", "promote_trigger_file", "recovery_target",
        "recovery_target_name", "recovery_target_time", "recovery_target_xid", "recovery_target_lsn",
        "recovery_target_inclusive", "recovery_target_timeline", "recovery_target_action",
    ]

    /// The settings that wait for a restart, comma-separated (empty when none, or when PostgreSQL does not run).
    static let waitingSQL =
        "SELECT string_agg(DISTINCT name, ',' ORDER BY name) FROM (SELECT name FROM pg_settings WHERE pending_restart "
        + "UNION ALL SELECT name FROM pg_file_settings WHERE error IS NOT NULL) s WHERE lower(name) <> ALL (ARRAY["
        + unchecked.map(SQL.literal).joined(separator: ", ") + "])"

    /// Waits out the cycle after a reload of patroni.yml on this member first: Patroni may be about to flag.
    var probe: String {
        let probe: ShellCommand =
            "\(PendingRestart.untilPublished(PatroniNodeRole.reloadedMark)); "
            + "echo \"waiting=$(\(model.postgres.run(Self.waitingSQL)) 2>/dev/null)\"; "
            + "if \(PatroniAPI(model, member: host).flagsPendingRestart); then echo flagged=1; fi"
        return probe.text
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let waiting = output.fields["waiting"] ?? ""
        guard !waiting.isEmpty, output.fields["flagged"] != "1" else { return [] }
        let flagged = PatroniAPI(model, member: host).flagsPendingRestart
        let seconds = model.patroni.loopWait + 20
        return [
            Change(
                "PostgreSQL waits for a restart to apply \(waiting), which Patroni has not flagged: reload Patroni",
                .shell(
                    PatroniNodeRole.reload(model).command + " && "
                        + Poll(
                            until: flagged, seconds: seconds,
                            onTimeout: .fail("Patroni has not flagged the restart after \(seconds) s")
                        ).command))
        ]
    }
}
