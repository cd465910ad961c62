/// Receives the run's events as they happen.
public protocol Reporter: Sendable {
    func report(_ event: RunEvent)
}
