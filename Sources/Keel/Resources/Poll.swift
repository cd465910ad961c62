/// A wait inside a shell command: `check` tried about once a second until it succeeds or `seconds` have passed
/// (a deadline on the clock, not a count of tries, so that a slow check does not stretch it). Then, on timeout,
/// the command either fails with `message` or goes on. The one way Keel's commands poll; ``WaitFor`` uses it too.
public struct Poll: Sendable, CustomStringConvertible {
    public enum Timeout: Sendable {
        /// Exit 1 with this message on stderr.
        case fail(String)
        /// Go on with the command after the loop (its next steps decide).
        case proceed
    }

    public var check: String
    public var seconds: Int
    public var onTimeout: Timeout
    public var interval: Double

    public init(until check: String, seconds: Int, onTimeout: Timeout, interval: Double = 1) {
        self.check = check
        self.seconds = seconds
        self.onTimeout = onTimeout
        self.interval = interval
    }

    /// The shell text: one compound command (`{ …; }`), so that `a && poll` skips the whole wait when `a` fails.
    public var description: String {
        let deadline = "keel_end=$(($(date +%s) + \(seconds)))"
        let expired = "[ \"$(date +%s)\" -ge \"$keel_end\" ]"
        let pause = "sleep \(interval == interval.rounded() ? String(Int(interval)) : String(interval))"
        switch onTimeout {
        case .fail(let message):
            return
                "{ \(deadline); until { \(check) ; }; do \(expired) && { echo \(shellQuote(message)) >&2; exit 1; }; "
                + "\(pause); done; }"
        case .proceed:
            return "{ \(deadline); until { \(check) ; } || \(expired); do \(pause); done; }"
        }
    }
}
