import Keel
import Synchronization

/// Keeps every event of a run, for tests to inspect.
public final class CollectingReporter: Reporter {
    private let events = Mutex<[RunEvent]>([])

    public init() {}

    public func report(_ event: RunEvent) { events.withLock { $0.append(event) } }

    /// The step reports, in the order they arrived.
    public var steps: [StepReport] {
        events.withLock { events in events.compactMap { if case .step(let report) = $0 { report } else { nil } } }
    }

    /// Every event, in the order it arrived.
    public var all: [RunEvent] { events.withLock { $0 } }

    /// Names of the handlers run on `host`, in order.
    public func handlers(on host: String) -> [String] {
        events.withLock { events in
            events.compactMap { if case .handler(host, let name, _, _) = $0 { name } else { nil } }
        }
    }

    /// Steps that changed (or would change), as "host: step".
    public var changed: [String] { steps.filter { $0.status == .changed }.map { "\($0.host): \($0.step)" } }
}

extension Change {
    /// The change's actions as the plan shows them.
    public var shown: [String] { actions.map(\.description) }
}
