/// A restart that changed files make due on a host, carried out later one host at a time (in a play with
/// `serial: 1`), and remembered on the host until it is done: a run killed in between leaves the mark behind,
/// and the next run restarts what it marks. The mark lives in `/run`, so a reboot — which restarts the service
/// anyway — clears it.
///
/// ```swift
/// let restart = RollingRestart("patroni", command: "systemctl restart patroni", ready: "curl -sf …/health")
/// Play("config", on: "db") { _ in Template("db.conf", to: "/etc/db.conf").onChange(restart.handler) }
/// Play("restarts", on: "db", serial: 1) { _ in restart.due }
/// ```
public struct RollingRestart: Sendable {
    public let name: String
    /// Restarts the service.
    public let command: ShellCommand
    /// Succeeds once the host is back in service; the mark goes only then.
    public let ready: ShellCommand

    public init(_ name: String, command: ShellCommand, ready: ShellCommand) {
        self.name = name
        self.command = command
        self.ready = ready
    }

    /// Where the host remembers that the restart is due.
    public var mark: String { "/run/keel/restart-due/\(name)" }

    /// Marks the restart due, when the service runs (a stopped one reads its files as it starts).
    public var handler: Handler {
        .run(
            name: "mark \(name) for a rolling restart",
            command: "if systemctl is-active -q \(name); then mkdir -p /run/keel/restart-due && touch \(mark); fi"
        )
    }

    /// The step that restarts the host when the restart is due, and waits until it is back in service.
    public var due: MarkedRestart {
        MarkedRestart(mark: mark, summary: "restart \(name)", command: command, ready: ready)
    }
}

/// Runs `command` when `mark` exists on the host, waits until `ready` succeeds, then removes the mark: a step
/// that a killed run leaves to the next.
public struct MarkedRestart: Resource {
    public let mark: String
    /// What the plan says is done (`restart patroni`).
    public let summary: String
    public let command: ShellCommand
    public let ready: ShellCommand

    public init(mark: String, summary: String, command: ShellCommand, ready: ShellCommand) {
        self.mark = mark
        self.summary = summary
        self.command = command
        self.ready = ready
    }

    public var description: String { "\(summary) when due" }
    public var affectsOtherResources: Bool { true }
    public var probe: String { ("[ -e \(mark) ] && echo due || echo none" as ShellCommand).text }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text == "due" else { return [] }
        return [
            Change(
                "\(summary) on \(host.name) and wait until it is in service", .shell(command),
                .shell(ready),
                .shell("rm -f \(mark)"))
        ]
    }
}
