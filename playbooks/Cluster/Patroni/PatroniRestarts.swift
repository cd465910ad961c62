import Keel

/// The two ways Keel (re)starts a member's Patroni one member at a time, each back in service before the next.
enum PatroniRestarts {
    /// A changed unit or password file: the running Patroni must read it. The leader first hands over to a
    /// replica (a switchover, not a failover); when none can take over, or the running Patroni refuses the
    /// credentials just changed, it restarts as the leader. With synchronous replication, the next member waits
    /// until a synchronous standby is named again, so a promotable member exists at every step.
    static func changedFiles(_ model: ClusterModel, host: String) -> RollingRestart {
        let api = PatroniAPI(model, member: host)
        let handOver: ShellCommand =
            "if \(api.isPrimary); then "
            + api.send("POST", "/switchover", json: #"{"leader": \#(JSONValue.string(host).json)}"#, timeout: 30)
            + " && \(Poll(until: "! \(api.isPrimary)", seconds: 60, onTimeout: .proceed).command); fi; "
        var ready = api.waitInService
        if model.patroni.synchronousMode && model.databaseHosts.count > 1 {
            ready =
                "( \(ready) ) && "
                + Poll(
                    until: "{ \(PatroniAPI.fromAnyMember(model, "/cluster")); } | grep -q '\"role\": \"sync_standby\"'",
                    seconds: 120, onTimeout: .fail("no synchronous standby after 120 s")
                ).command
        }
        return RollingRestart("patroni", command: handOver + Handler.restartIfRunning("patroni").command, ready: ready)
    }

    /// Left by ``OldPatroniStop`` on a member whose older Patroni it stopped.
    static let replacingMark = "/etc/patroni/.keel-replacing"

    /// Keel's Patroni, started on the data the older one managed, once Keel's files are in place.
    static func replacing(_ model: ClusterModel, host: String) -> MarkedRestart {
        MarkedRestart(
            mark: replacingMark, summary: "start Patroni \(model.patroni.version) in place of Debian's",
            command: "systemctl daemon-reload && systemctl enable -q patroni && systemctl start patroni",
            ready: PatroniAPI(model, member: host).waitInService)
    }
}
