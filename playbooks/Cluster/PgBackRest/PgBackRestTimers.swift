import Keel

/// systemd timers for the full and the differential backups, run as the backup user; with `condition`, a run is
/// skipped unless that command succeeds when the timer fires.
struct PgBackRestTimers: Role {
    let backups: ClusterModel.Backups
    let condition: String?

    init(backups: ClusterModel.Backups, onlyIf condition: String?) {
        self.backups = backups
        self.condition = condition
    }

    var steps: [Step] {
        Template(
            "cluster/pgbackrest/backup.service", to: "/etc/systemd/system/pgbackrest-\(backups.stanza)@.service",
            values: [
                "stanza": .string(backups.stanza), "user": .string(backups.backupUser),
                "condition": .string(condition ?? ""),
            ])
        for (type, schedule) in [("full", backups.fullSchedule), ("diff", backups.differentialSchedule)] {
            Template(
                "cluster/pgbackrest/backup.timer", to: "/etc/systemd/system/pgbackrest-\(backups.stanza)-\(type).timer",
                values: [
                    "stanza": .string(backups.stanza), "type": .string(type), "schedule": .string(schedule),
                ])
            Service("pgbackrest-\(backups.stanza)-\(type).timer", state: .started, enabled: true)
        }
    }
}
