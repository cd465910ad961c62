/// A wait inside a shell command: `check` tried about once a second until it succeeds or `seconds` have passed
/// (a deadline on the clock, not a count of tries, so that a slow check does not stretch it). Then, on timeout,
/// the command either fails with `message` or goes on. The one way Keel's commands poll; ``WaitFor`` uses it too.
public struct Poll: Sendable {
    public enum Timeout: Sendable {
        /// Exit 1 with this message on stderr.
        case fail(String)
        /// Go on with the command after the loop (its next steps decide).
        case proceed
    }

    public var check: ShellCommand
    public var seconds: Int
    public var onTimeout: Timeout
    public var interval: Double

    public init(until check: ShellCommand, seconds: Int, onTimeout: Timeout, interval: Double = 1) {
        self.check = check
        self.seconds = seconds
        self.onTimeout = onTimeout
        self.interval = interval
    }

    /// One compound command (`{ …; }`), so that `a && poll` skips the whole wait when `a` fails.
    public var command: ShellCommand {
        let deadline = "keel_end=$(($(date +%s) + \(seconds)))"
        let expired = "[ \"$(date +%s)\" -ge \"$keel_end\" ]"
        let pause = "sleep \(interval == interval.rounded() ? String(Int(interval)) : String(interval))"
        switch onTimeout {
        case .fail(let message):
            return
                "{ \(raw: deadline); until { \(check) ; }; do \(raw: expired) && { echo \(message) >&2; exit 1; }; "
                + "\(raw: pause); done; }"
        case .proceed:
            return "{ \(raw: deadline); until { \(check) ; } || \(raw: expired); do \(raw: pause); done; }"
        }
    }
}
