import KeelSSH

/// Runs work on many hosts at once, at most `forks` at a time, each over its own SSH connection, closed when its
/// work is done.
public struct Fleet: Sendable {
    /// What happened on one host.
    public enum Outcome<Value: Sendable>: Sendable {
        /// Connected and `body` returned; with how long the connection took to open.
        case done(Value, connectTime: Duration)
        /// No authenticated connection could be made.
        case unreachable(any Error)
        /// Connected, but `body` threw.
        case failed(any Error)
    }

    public let options: ConnectionOptions
    public let forks: Int

    public init(options: ConnectionOptions, forks: Int = 10) {
        self.options = options
        self.forks = max(1, forks)
    }

    /// Connects to each target and runs `body` on it; `report` hears each host as soon as it is done.
    /// - Returns: every host's outcome, in the order of `targets`.
    public func run<Value: Sendable>(
        _ targets: [HostTarget],
        report: @Sendable (HostTarget, Outcome<Value>) -> Void = { _, _ in },
        _ body: @escaping @Sendable (HostTarget, any Transport) async throws -> Value
    ) async -> [Outcome<Value>] {
        await targets.concurrentMap(limit: forks, completed: { report(targets[$0], $1) }) { [options] target in
            await Self.visit(target, options.configuration(for: target), body)
        }
    }

    private static func visit<Value: Sendable>(
        _ target: HostTarget, _ configuration: SSHConfiguration,
        _ body: @Sendable (HostTarget, any Transport) async throws -> Value
    ) async -> Outcome<Value> {
        let start = ContinuousClock.now
        let connection: SSHConnection
        do {
            connection = try await SSHConnection.connect(configuration)
        } catch let error as SSHError {
            return .unreachable(error)
        } catch {
            return .unreachable(SSHError(.connectFailed, host: target.name, operation: "connect", message: "\(error)"))
        }
        let connectTime = ContinuousClock.now - start
        let outcome: Outcome<Value>
        do {
            outcome = .done(try await body(target, connection), connectTime: connectTime)
        } catch {
            outcome = .failed(error)
        }
        await connection.close()
        return outcome
    }
}
