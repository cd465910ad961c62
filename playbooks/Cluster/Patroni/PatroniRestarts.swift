import Keel

/// The two ways Keel (re)starts a member's Patroni one member at a time, each back in service before the next.
enum PatroniRestarts {
    /// A changed unit or password file: the running Patroni must read it.
    static func changedFiles(_ model: ClusterModel, host: String) -> RollingRestart {
        RollingRestart(
            "patroni", command: Handler.restartIfRunning("patroni").command,
            ready: PatroniAPI(model, member: host).waitInService)
    }

    /// Left by ``OldPatroniStop`` on a member whose older Patroni it stopped.
    static let replacingMark = "/etc/patroni/.keel-replacing"

    /// Keel's Patroni, started on the data the older one managed, once Keel's files are in place.
    static func replacing(_ model: ClusterModel, host: String) -> MarkedRestart {
        MarkedRestart(
            mark: replacingMark, summary: "start Patroni \(model.patroniVersion) in place of Debian's",
            command: "systemctl daemon-reload && systemctl enable -q patroni && systemctl start patroni",
            ready: PatroniAPI(model, member: host).waitInService)
    }
}
