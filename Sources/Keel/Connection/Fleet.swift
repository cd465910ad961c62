import KeelSSH

/// Opens a connection to a host: over SSH (``ConnectionOptions/connector``), or a fake in tests.
public typealias HostConnector = @Sendable (HostTarget) async throws -> any Transport

/// Runs work on many hosts at once, at most `forks` at a time, each over its own connection, closed when its work
/// is done. It connects as the ``Runner`` does, so what a flow reads before it plans is tested the same way.
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

    public let connector: HostConnector
    public let forks: Int

    /// A fleet that reaches hosts over SSH.
    public init(options: ConnectionOptions, forks: Int = 10) {
        self.init(forks: forks, connector: options.connector)
    }

    /// A fleet that reaches hosts through `connector`.
    public init(forks: Int = 10, connector: @escaping HostConnector) {
        self.connector = connector
        self.forks = max(1, forks)
    }

    /// Connects to each target and runs `body` on it; `report` hears each host as soon as it is done.
    /// - Returns: every host's outcome, in the order of `targets`.
    public func run<Value: Sendable>(
        _ targets: [HostTarget],
        report: @Sendable (HostTarget, Outcome<Value>) -> Void = { _, _ in },
        _ body: @escaping @Sendable (HostTarget, any Transport) async throws -> Value
    ) async -> [Outcome<Value>] {
        await targets.concurrentMap(limit: forks, completed: { report(targets[$0], $1) }) { [connector] target in
            await Self.visit(target, connector, body)
        }
    }

    private static func visit<Value: Sendable>(
        _ target: HostTarget, _ connector: HostConnector,
        _ body: @Sendable (HostTarget, any Transport) async throws -> Value
    ) async -> Outcome<Value> {
        let start = ContinuousClock.now
        let connection: any Transport
        do {
            connection = try await connector(target)
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
