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
