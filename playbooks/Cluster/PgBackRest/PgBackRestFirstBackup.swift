import Keel

/// The stanza and its first full backup, made once the cluster serves: on the repository host, or on the member
/// that is the primary (`onlyIf`) when the repository is shared. The backup runs as a transient systemd unit, so
/// that a run that is killed or gives up waiting leaves it running, and the next run waits for it instead of
/// starting a second one.
struct PgBackRestFirstBackup: Role {
    let backups: ClusterModel.Backups
    let condition: String?
    let timeout: Duration

    init(_ backups: ClusterModel.Backups, onlyIf condition: String?, timeout: Duration) {
        self.backups = backups
        self.condition = condition
        self.timeout = timeout
    }

    var steps: [Step] {
        let pgbackrest = "runuser -u \(backups.backupUser) -- pgbackrest --stanza=\(shellQuote(backups.stanza))"
        let elsewhere = condition.map { "! \($0) || " } ?? ""
        let done = "\(pgbackrest) info | grep -q 'full backup:'"
        let unit = "keel-first-backup"
        Command(
            "\(pgbackrest) stanza-create",
            unless: "\(elsewhere)[ -e \(backups.path)/backup/\(backups.stanza)/backup.info ]")
        Command(
            "systemctl reset-failed \(unit) 2>/dev/null; systemd-run --quiet --unit=\(unit) "
                + "--description='Keel: the first full backup of stanza \(backups.stanza)' /bin/sh -c "
                + shellQuote("\(pgbackrest) check && \(pgbackrest) --type=full backup"),
            unless: "\(elsewhere)\(done) || systemctl is-active -q \(unit)")
        Command(
            "while systemctl is-active -q \(unit); do sleep 2; done; \(done) || "
                + "{ journalctl -u \(unit) -n 20 --no-pager -o cat >&2; exit 1; }",
            unless: "\(elsewhere)\(done)", timeout: timeout)
    }
}
