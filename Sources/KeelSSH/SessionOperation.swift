import Synchronization

/// One piece of work on a session (a command, a file transfer), advanced step by step by the session's thread.
///
/// Operations never block: each ``step(_:)`` makes what progress it can and reports whether it moved. Only the
/// owning thread calls ``step(_:)`` and ``abort(_:)``.
protocol SessionOperation: AnyObject, Sendable {
    /// Set from any thread when the awaiting task is cancelled.
    var control: OperationControl { get }
    /// When the operation must be cut short; nil for none.
    var deadline: ContinuousClock.Instant? { get }
    /// When a refused channel open should be tried again; nil when not waiting to retry.
    var retryAt: ContinuousClock.Instant? { get }
    /// Advances the operation as far as it can go without waiting.
    func step(_ owner: SessionOwner) -> StepOutcome
    /// Reports `error` to the caller now; the operation then only cleans up its channel in later steps.
    func abort(_ error: any Error)
}

/// What one ``SessionOperation/step(_:)`` achieved.
enum StepOutcome {
    /// Something moved; stepping again may move more.
    case progressed
    /// Waiting for the network or for its turn.
    case blocked
    /// Done, result delivered, channel released.
    case finished
    /// The server refused a new channel while others are open: try again once one closes.
    case requeue
}

/// The part of an operation other threads may touch: its cancellation flag.
final class OperationControl: Sendable {
    private let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }
}

/// Hands an operation's outcome to its awaiting task exactly once.
struct Completion<Value: Sendable> {
    private var continuation: CheckedContinuation<Value, any Error>?

    init(_ continuation: CheckedContinuation<Value, any Error>) { self.continuation = continuation }

    /// True once the caller has been answered.
    var isDelivered: Bool { continuation == nil }

    mutating func deliver(_ result: Result<Value, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
    }
}

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
