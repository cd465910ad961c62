import Keel

/// systemd timers for the full and the differential backups, run as the backup user; with `condition`, a run is
/// skipped unless that command succeeds when the timer fires.
struct PgBackRestTimers: Role {
    let backups: ClusterModel.Backups
    let condition: ShellCommand?

    init(backups: ClusterModel.Backups, onlyIf condition: ShellCommand?) {
        self.backups = backups
        self.condition = condition
    }

    /// The service template the timers start, with the backup's type as its instance.
    static func service(_ backups: ClusterModel.Backups) -> String {
        "/etc/systemd/system/pgbackrest-\(backups.stanza)@.service"
    }

    /// The timer of the `type` (`full`, `diff`) backups.
    static func timer(_ backups: ClusterModel.Backups, _ type: String) -> String {
        "/etc/systemd/system/pgbackrest-\(backups.stanza)-\(type).timer"
    }

    /// The units a removal deletes.
    static func footprint(_ backups: ClusterModel.Backups) -> [String] {
        [service(backups), timer(backups, "full"), timer(backups, "diff")]
    }

    var steps: [Step] {
        Template(
            "cluster/pgbackrest/backup.service", to: Self.service(backups),
            values: [
                "stanza": .string(backups.stanza), "user": .string(backups.backupUser),
                "condition": .string(condition?.text ?? ""),
            ])
        for (type, schedule) in [("full", backups.fullSchedule), ("diff", backups.differentialSchedule)] {
            Template(
                "cluster/pgbackrest/backup.timer", to: Self.timer(backups, type),
                values: [
                    "stanza": .string(backups.stanza), "type": .string(type), "schedule": .string(schedule),
                ])
            Service("pgbackrest-\(backups.stanza)-\(type).timer", state: .started, enabled: true)
        }
    }
}
