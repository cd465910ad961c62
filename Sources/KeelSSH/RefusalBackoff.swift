/// Spaces out new attempts after the server refused a channel, and gives up when retrying is hopeless.
struct RefusalBackoff {
    private(set) var attempts = 0
    private(set) var notBefore: ContinuousClock.Instant?

    /// Schedules the next attempt; false when it should not be made. While other channels are open, a slot will
    /// free up; with none open, a server that keeps refusing for about 10 seconds refuses for good.
    mutating func schedule(othersOpen: Bool) -> Bool {
        attempts += 1
        if !othersOpen && attempts > 40 { return false }
        notBefore = .now + .milliseconds(min(25 * attempts, 250))
        return true
    }

    /// Whether the scheduled attempt may be made now.
    var isDue: Bool { notBefore.map { $0 <= .now } ?? true }
}
