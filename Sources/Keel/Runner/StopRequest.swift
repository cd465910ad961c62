import Synchronization

/// Asks a run to stop between steps (a first Ctrl-C): the steps in flight finish and their handlers run, no new
/// step starts, and the recap says what did not run.
public final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    public func request() { requested.store(true, ordering: .relaxed) }

    public var isRequested: Bool { requested.load(ordering: .relaxed) }
}
