import Keel

/// PostgreSQL run by hand, outside Patroni, as the postgres account: what a restore needs while Patroni is stopped.
struct PostgresControl {
    let model: ClusterModel

    init(_ model: ClusterModel) { self.model = model }

    private var pgctl: ShellCommand {
        "runuser -u postgres -- \(model.binDirectory + "/pg_ctl") -D \(model.dataDirectory)"
    }

    /// Succeeds when no PostgreSQL runs on the data directory, stopping one that does (fast: sessions end,
    /// nothing is lost).
    var stopped: ShellCommand { "{ ! \(pgctl) status >/dev/null 2>&1 || \(pgctl) -m fast -w -t 300 stop >/dev/null; }" }

    /// Starts PostgreSQL on the data directory in the background for a recovery, logging to `log`: reachable only
    /// through its local socket (no client connects over the network), and without hot standby, so that it takes
    /// no connection before it is promoted and a parameter raised on the primary after the backup (which a hot
    /// standby must match) does not pause the recovery.
    func startRecovery(log: String) -> ShellCommand {
        let options = "-c listen_addresses='' -c hot_standby=off"
        return "\(pgctl) -W -l \(log) -o \(options) start >/dev/null"
    }

    /// Succeeds while PostgreSQL runs on the data directory.
    var running: ShellCommand { "\(pgctl) status >/dev/null 2>&1" }

    /// `command` run by postgres's own shell, so that every path it opens, makes, moves, reads or removes is reached
    /// with postgres's rights. postgres controls its home, the data directories, a scratch folder given to it and
    /// `/var/log/postgresql` (root:postgres 1775): a link it planted there must lead root nowhere. The flows touch
    /// those paths only so; shell variables `command` reads must be exported. It runs in `directory` (`/` unless
    /// given): root's working folder is closed to postgres, and `find` or pg_upgrade fail there.
    static func asPostgres(_ command: ShellCommand, in directory: ShellCommand = "/") -> ShellCommand {
        let script: ShellCommand = "cd \(directory) && \(command)"
        return "runuser -u postgres -- sh -c \(script.text)"
    }
}
