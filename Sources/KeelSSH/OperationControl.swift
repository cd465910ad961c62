import Synchronization

/// The part of an operation other threads may touch: its cancellation flag.
final class OperationControl: Sendable {
    private let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }
}
