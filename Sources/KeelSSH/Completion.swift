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
