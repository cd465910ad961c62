/// Waits until something on the host is ready: a TCP port accepts, an HTTP URL answers a status, a command
/// succeeds. Converged (no change) when it already is.
public struct WaitFor: Resource {
    public enum Condition: Sendable {
        case port(Int, host: String = "127.0.0.1")
        case http(String, status: Int = 200)
        /// A shell test, and what it waits for in a few words (the step's name; the test shows under `-v`).
        case command(ShellCommand, what: String)
    }

    public var condition: Condition
    public var timeout: Duration
    public var interval: Duration

    public init(_ condition: Condition, timeout: Duration = .seconds(120), interval: Duration = .seconds(1)) {
        self.condition = condition
        self.timeout = timeout
        self.interval = interval
    }

    public static func port(_ port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(120)) -> WaitFor {
        WaitFor(.port(port, host: host), timeout: timeout)
    }

    public var description: String {
        switch condition {
        case .port(let port, let host): "wait for \(host):\(port)"
        case .http(let url, let status): "wait for \(url) → \(status)"
        case .command(_, let what): "wait for \(what)"
        }
    }

    /// The shell test that succeeds once the condition holds.
    public var check: ShellCommand {
        switch condition {
        case .port(let port, let host): return .portAccepts(host, port)
        case .http(let url, let status):
            return "[ \"$(curl -s -o /dev/null -m 5 -w '%{http_code}' \(url))\" = \(status) ]"
        case .command(let command, _): return command
        }
    }

    public var probe: String { "if { \(check) ; } >/dev/null 2>&1; then echo ready=1; else echo ready=0; fi" }

    public var isWait: Bool { true }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.fields["ready"] != "1" else { return [] }
        let seconds = max(1, Int(timeout.components.seconds))
        let loop = Poll(
            until: "{ \(check) ; } >/dev/null 2>&1", seconds: seconds, onTimeout: .fail("not ready after \(seconds) s"),
            interval: max(0.1, interval.seconds))
        return [Change("wait up to \(seconds) s", .shell(loop.command, timeout: timeout + .seconds(30)))]
    }
}
