import Keel

/// The stanza and its first full backup, made once the cluster serves: on the repository host, or on the member
/// that is the primary (`onlyIf`) when the repository is shared. The backup runs as a transient systemd unit, so
/// that a run that is killed or gives up waiting leaves it running, and the next run waits for it instead of
/// starting a second one.
struct PgBackRestFirstBackup: Role {
    let backups: ClusterModel.Backups
    let condition: ShellCommand?
    let timeout: Duration

    init(_ backups: ClusterModel.Backups, onlyIf condition: ShellCommand?, timeout: Duration) {
        self.backups = backups
        self.condition = condition
        self.timeout = timeout
    }

    var steps: [Step] {
        let pgbackrest = PgBackRest(backups)
        let elsewhere: ShellCommand = condition.map { "! \($0) || " } ?? ""
        let done: ShellCommand = "\(pgbackrest("info")) | grep -q 'full backup:'"
        let unit = "keel-first-backup"
        let info = "\(backups.path)/backup/\(backups.stanza)/backup.info"
        let purpose = "Keel: the first full backup of stanza \(backups.stanza)"
        let backup: ShellCommand = "\(pgbackrest("check")) && \(pgbackrest("--type=full backup"))"
        Command(
            Self.waitingForLock(pgbackrest("stanza-create")), what: "pgBackRest stanza \(backups.stanza) created",
            unless: "\(elsewhere)[ -e \(info) ]")
        Command(
            "systemctl reset-failed \(unit) 2>/dev/null; systemd-run --quiet --unit=\(unit) "
                + "--description=\(purpose) /bin/sh -c \(backup.text)",
            what: "first full backup of stanza \(backups.stanza) started",
            unless: "\(elsewhere)\(done) || systemctl is-active -q \(unit)")
        Command(
            "while systemctl is-active -q \(unit); do sleep 2; done; \(done) || "
                + "{ journalctl -u \(unit) -n 20 --no-pager -o cat >&2; exit 1; }",
            what: "wait for the first full backup",
            unless: "\(elsewhere)\(done)", timeout: timeout)
    }

    /// `command` run again while pgBackRest refuses it for a lock another of its processes holds (exit 50: a run
    /// that was killed left one running, a scheduled backup, a member's archiving), for up to five minutes.
    static func waitingForLock(_ command: ShellCommand) -> ShellCommand {
        "(s=50; \(Poll(until: "{ \(command); s=$?; [ $s != 50 ]; }", seconds: 300, onTimeout: .proceed).command); exit $s)"
    }
}
