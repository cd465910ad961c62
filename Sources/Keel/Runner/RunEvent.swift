/// What happened during a run, as reporters (the console, the `--events` JSON-lines file) hear it.
public enum RunEvent: Sendable {
    case playStarted(name: String, hosts: [String])
    case step(StepReport)
    /// A step applying its changes for longer than ``RunOptions/slowStep``, heard once while it runs: a log then
    /// shows where a run waits or hangs.
    case stepRunning(host: String, play: String, step: String)
    case handler(host: String, name: String, status: StepStatus, error: String?)
    case unreachable(host: String, error: String)
    /// A remote command and its result, for `-v`.
    case command(host: String, command: String, exitStatus: Int32, stdout: String, stderr: String)
    case finished(Recap)
}

/// How one step ended on one host.
public enum StepStatus: String, Sendable, Codable {
    case ok, changed, failed, skipped
}

/// One step on one host: its outcome, what changed (or would, under `--check`), and how long it took.
public struct StepReport: Sendable, Codable {
    public var host: String
    public var play: String
    public var step: String
    public var status: StepStatus
    public var changes: [String]
    /// Commands apply ran or would run.
    public var commands: [String]
    /// Unified diffs of file contents, when asked for.
    public var diffs: [String]
    public var seconds: Double
    public var error: String?
}

/// Per-host totals at the end of a run, and the slowest steps.
public struct Recap: Sendable, Codable {
    public struct Counts: Sendable, Codable, Equatable {
        public var ok = 0
        public var changed = 0
        public var failed = 0
        public var skipped = 0
        public var unreachable = 0

        public init(ok: Int = 0, changed: Int = 0, failed: Int = 0, skipped: Int = 0, unreachable: Int = 0) {
            self.ok = ok
            self.changed = changed
            self.failed = failed
            self.skipped = skipped
            self.unreachable = unreachable
        }
    }

    public struct Timing: Sendable, Codable {
        public var host: String
        public var step: String
        public var seconds: Double
    }

    public var hosts: [String: Counts] = [:]
    public var order: [String] = []
    public var slowest: [Timing] = []
    public var seconds: Double = 0
    public var checkMode = false
    /// Steps that did not run because the run was asked to stop (Ctrl-C), by host.
    public var notRun: [String: Int] = [:]
    /// Whether the run was asked to stop before its end.
    public var interrupted = false

    /// Hosts that failed or could not be reached.
    public var failedHosts: [String] { order.filter { (hosts[$0]?.failed ?? 0) + (hosts[$0]?.unreachable ?? 0) > 0 } }
    /// Changes applied, or pending under `--check`.
    public var totalChanged: Int { hosts.values.reduce(0) { $0 + $1.changed } }
}

/// Receives the run's events as they happen.
public protocol Reporter: Sendable {
    func report(_ event: RunEvent)
}
