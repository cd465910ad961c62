import Foundation
import KeelCore
import Synchronization

/// A host's session held by the ``ConnectionKeeper``: this run's commands travel to it over the keeper's socket,
/// and the session, opened by an earlier run or by this one, stays open for the next when this one is done.
public final class KeptConnection: Transport {
    private let keeper: KeeperAddress
    /// The socket that holds the lease: closing it (or this process ending) hands the session back.
    private let lease: Int32
    /// The keeper's id of the session.
    let session: String
    private let host: String
    /// Whether the session was kept from an earlier lease: this run made no login to the host.
    public let wasKept: Bool

    private init(keeper: KeeperAddress, lease: Int32, grant: LeaseGrant, host: String) {
        self.keeper = keeper
        self.lease = lease
        self.session = grant.session
        self.wasKept = grant.kept
        self.host = host
    }

    deinit { Glibc.close(lease) }

    /// Leases the session of inventory host `name` from the keeper, which opens it with `configuration` unless it
    /// holds one already; nil when no keeper can be reached (connect directly then).
    /// - Throws: ``SSHError``, as ``SSHConnection/connect(_:)`` does, when the session cannot be opened.
    public static func lease(
        name: String, configuration: SSHConfiguration, from keeper: KeeperAddress
    ) async throws -> KeptConnection? {
        let request = try KeeperFrame(.lease, json: LeaseRequest(name: name, configuration: .init(configuration)))
        let host = configuration.displayHost
        return try await onThread { () throws -> KeptConnection? in
            guard let socket = keeper.connect() else { return nil }
            guard request.write(to: socket), let reply = KeeperFrame.read(from: socket) else {
                Glibc.close(socket)
                return nil
            }
            switch reply.kind {
            case .leased:
                guard let grant = try? reply.decode(LeaseGrant.self) else { break }
                return KeptConnection(keeper: keeper, lease: socket, grant: grant, host: host)
            default:
                break
            }
            Glibc.close(socket)
            throw (try? reply.decode(FailureMessage.self))?.error(host: host)
                ?? SSHError(.connectFailed, host: host, operation: "connect", message: "the keeper failed")
        }
    }

    public func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult {
        let request = RunRequest(
            session: session, command: command, becomeUser: become?.user,
            timeoutMilliseconds: timeout.map { Int64($0 / .milliseconds(1)) }, outputLimit: outputLimit,
            observe: observe != nil)
        let frames = [try KeeperFrame(.run, json: request), KeeperFrame(.input, input)]
        let socket = Mutex<Int32?>(nil)
        let cancelled = Atomic(false)
        return try await withTaskCancellationHandler {
            try await Self.onThread { [keeper, host] () throws -> ExecResult in
                let lost = SSHError(
                    .disconnected, host: host, operation: "exec", message: "the connection keeper went away")
                guard let opened = UnixSocket.connect(to: keeper.socketPath) else { throw lost }
                socket.withLock { $0 = opened }
                defer {
                    socket.withLock { socket in
                        socket = nil
                        Glibc.close(opened)
                    }
                }
                guard frames.allSatisfy({ frame in socket.withLock { _ in frame.write(to: opened) } }) else {
                    throw lost
                }
                if cancelled.load(ordering: .acquiring) {
                    _ = socket.withLock { _ in KeeperFrame(.cancel).write(to: opened) }
                }
                var result = ExecResult()
                while let frame = KeeperFrame.read(from: opened) {
                    switch frame.kind {
                    case .output: observe?(frame.payload)
                    case .stdout: result.stdout = frame.payload
                    case .stderr: result.stderr = frame.payload
                    case .exit:
                        let exit = try frame.decode(ExitMessage.self)
                        result.exitStatus = exit.exitStatus
                        result.signal = exit.signal
                        return result
                    case .failure: throw try frame.decode(FailureMessage.self).error(host: host)
                    default: throw lost
                    }
                }
                throw lost
            }
        } onCancel: {
            cancelled.store(true, ordering: .releasing)
            socket.withLock { opened in
                if let opened { _ = KeeperFrame(.cancel).write(to: opened) }
            }
        }
    }

    /// Hands the session back to the keeper, which keeps it open for the next run.
    public func close() async { shutdown(lease, Int32(SHUT_RDWR)) }

    /// Runs blocking socket work on a thread of its own, never on Swift's cooperative pool.
    private static func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result(catching: body)) }.start()
        }
    }
}
