/// What happened during a run, as reporters (the console, the `--events` JSON-lines file) hear it.
public enum RunEvent: Sendable {
    case playStarted(name: String, hosts: [String])
    case step(StepReport)
    /// A step applying its changes for longer than ``RunOptions/slowStep``, heard once while it runs: a log then
    /// shows where a run waits or hangs.
    case stepRunning(host: String, play: String, step: String)
    /// The last line the command of `host`'s running step printed (apt's progress, say), for a terminal's live
    /// lines; the events file leaves it out.
    case stepOutput(host: String, line: String)
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
