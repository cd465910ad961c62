import Foundation

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
    /// A descriptor of its own the session's thread also waits on, with the events it waits for; nil for none.
    var descriptor: pollfd? { get }
    /// Whether libssh2 already holds what would move the operation, read off the socket while another call ran:
    /// its output, its end, room in its window. The socket then has nothing left to wake the thread's `poll`.
    var hasArrived: Bool { get }
    /// Reports `error` to the caller now; the operation then only cleans up its channel in later steps.
    func abort(_ error: any Error)
    /// What the caller is told when ``deadline`` passes, on the session to `host`.
    func pastDeadline(on host: String) -> SSHError
}

extension SessionOperation {
    var descriptor: pollfd? { nil }
    var hasArrived: Bool { false }

    func pastDeadline(on host: String) -> SSHError {
        SSHError(.timedOut, host: host, operation: "exec", message: "the command ran past its deadline")
    }
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
