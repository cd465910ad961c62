/// One connection per host for a whole command: the facts its variables need, the survey a flow plans from and the
/// run itself all go through the same connection, opened on first use and closed by ``closeAll()`` at the end.
/// A connection that could not be opened is tried again by the next user.
public actor ConnectionPool {
    private let connect: HostConnector
    private var connections: [String: Task<any Transport, any Error>] = [:]

    public init(connect: @escaping HostConnector) { self.connect = connect }

    /// Connects through the pool: each user gets the host's shared connection, whose `close()` leaves it open.
    public nonisolated var connector: HostConnector {
        { target in Shared(base: try await self.connection(for: target)) }
    }

    private func connection(for target: HostTarget) async throws -> any Transport {
        let opening: Task<any Transport, any Error>
        if let existing = connections[target.name] {
            opening = existing
        } else {
            opening = Task { [connect] in try await connect(target) }
            connections[target.name] = opening
        }
        do {
            return try await opening.value
        } catch {
            if connections[target.name] == opening { connections[target.name] = nil }
            throw error
        }
    }

    /// Closes every connection opened.
    public func closeAll() async {
        for opening in connections.values { await (try? opening.value)?.close() }
        connections = [:]
    }

    /// A pooled connection as its users see it: closing it is the pool's job.
    private struct Shared: Transport {
        let base: any Transport

        func run(
            _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
            observe: OutputObserver?
        ) async throws -> ExecResult {
            try await base.run(
                command, input: input, become: become, timeout: timeout, outputLimit: outputLimit, observe: observe)
        }

        func close() async {}
    }
}
