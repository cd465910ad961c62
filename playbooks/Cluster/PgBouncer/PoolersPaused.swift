import Keel

/// A balancer's PgBouncer holds its clients' queries while the leader's role moves (a switchover), instead of
/// passing them to a leader that is shutting down: paused (`SIGUSR1`: each query running ends, then every server
/// connection closes; new queries wait) while its HAProxy still routes to the leader `leader`, and resumed by
/// ``PoolersResumed`` once HAProxy routes to another member (or, after a major upgrade, to the same one again). A
/// systemd timer resumes it after `longest` seconds whatever happens to the run (a failed switchover, Keel killed),
/// so clients never wait longer than that.
struct PoolersPaused: Resource {
    let leader: String
    /// The most seconds PgBouncer stays paused.
    var longest = Self.switchover

    /// The bound of a switchover's pause.
    static let switchover = 30
    /// The timer that resumes it; active while the pause lasts.
    static let timer = "keel-pgbouncer-resume"
    /// How long the pause waits for the queries running to end: a client that holds its server connection longer
    /// (a session in session pooling) sees the switchover end it, as it would without the pause.
    static let queriesWait = 10

    var description: String { "pgbouncer paused while \(leader) stops leading" }

    var probe: String {
        let routed: ShellCommand =
            HAProxyRole.serverStates(HAProxyRole.pooledLeader)
            + " | awk -v leader=\(leader) '$4 == leader && $6 == 2 { print \"routed=1\" }'"
        return "systemctl is-active --quiet pgbouncer && echo serving=1; "
            + "systemctl is-active --quiet \(Self.timer).timer && echo paused=1; \(routed.text); true"
    }

    /// Paused only while PgBouncer serves (a stopped one has no client to hold) and HAProxy still routes to the
    /// leader handing over.
    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        guard fields["serving"] != nil, fields["routed"] != nil, fields["paused"] == nil else { return [] }
        let timer: ShellCommand =
            "systemctl stop \(Self.timer).timer 2>/dev/null; systemctl reset-failed \(Self.timer).service "
            + "\(Self.timer).timer 2>/dev/null; systemd-run --quiet --unit=\(Self.timer) --on-active=\(longest) "
            + "--timer-property=AccuracySec=100ms \(Self.signal("SIGUSR2"))"
        let serversClosed = Poll(
            until: "[ -z \"$(ss -Htn state established '( dport = :\(ClusterPorts.pooledLeader) )')\" ]",
            seconds: Self.queriesWait, onTimeout: .proceed, interval: 0.1)
        return [
            Change(
                "pause PgBouncer's pools (resumed within \(longest) s whatever happens)",
                .shell("\(timer) && \(Self.signal("SIGUSR1")) && \(serversClosed.command)"))
        ]
    }

    /// PgBouncer's main process sent `signal`.
    static func signal(_ signal: String) -> ShellCommand {
        "systemctl kill --kill-who=main -s \(signal) pgbouncer"
    }
}

/// The pause of ``PoolersPaused`` ended as soon as HAProxy routes to the leader: after a switchover, the former
/// leader marked down at once rather than after HAProxy's next failed checks, then the wait (up to `longest`
/// seconds) for another member's check to pass; after a major upgrade, the wait for the same member's.
struct PoolersResumed: Resource {
    /// The member HAProxy routes to when the pause ends.
    enum Leader {
        /// Any but this one, the former leader.
        case other(than: String)
        /// This one, leading again.
        case same(String)
    }

    let leader: Leader
    var longest = PoolersPaused.switchover

    var description: String { "pgbouncer resumed, routing to the new leader" }

    var probe: String { "systemctl is-active --quiet \(PoolersPaused.timer).timer && echo paused=1; true" }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.fields["paused"] != nil else { return [] }
        let listener = HAProxyRole.pooledLeader
        let (demoted, up): (ShellCommand, String) =
            switch leader {
            case .other(let former):
                (
                    HAProxyRole.adminCommand("set server \(listener)/\(former) health down") + " >/dev/null; ",
                    "$4 != leader && $6 == 2"
                )
            case .same: ("", "$4 == leader && $6 == 2")
            }
        let name =
            switch leader {
            case .other(let former), .same(let former): former
            }
        let routed = Poll(
            until: HAProxyRole.serverStates(listener)
                + " | awk -v leader=\(name) '\(raw: up) { up = 1 } END { exit !up }'",
            seconds: longest, onTimeout: .proceed, interval: 0.2)
        return [
            Change(
                "resume PgBouncer's pools once HAProxy routes to the leader",
                .shell(
                    "\(demoted)\(routed.command); \(PoolersPaused.signal("SIGUSR2")) && "
                        + "systemctl stop \(PoolersPaused.timer).timer"))
        ]
    }
}
