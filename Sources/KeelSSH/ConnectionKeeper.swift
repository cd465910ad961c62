import Foundation
import KeelCore
import Synchronization

/// Keeps the SSH sessions of finished keel runs open for a while, so the next run on the same hosts skips the
/// logins (what OpenSSH's ControlPersist does for Ansible).
///
/// It runs in a background keel process of its own and serves ``KeptConnection``s on a unix socket in a folder only
/// the user may enter; it accepts only peers of the same user. A session is held while a client leases it and for
/// `persist` after; the keeper exits when it holds none. A client that goes away mid-command has the command cut
/// short as a cancelled one is (everything it started on the host ended).
public enum ConnectionKeeper {
    /// Opens a session: over SSH, or a fake in tests.
    public typealias Connect = @Sendable (SSHConfiguration) async throws -> any Transport

    /// Serves at `socketPath` until no session has been held or used for `persist`, or the task is cancelled;
    /// returns at once when another keeper serves there.
    public static func serve(
        at socketPath: String, persist: Duration,
        connect: @escaping Connect = { try await SSHConnection.connect($0) }
    ) async throws {
        let lock = PrivateFolder.open(socketPath + ".lock", flags: O_RDWR | O_CREAT)
        guard lock >= 0 else {
            throw KeeperError("cannot open \(socketPath).lock: \(String(cString: strerror(errno)))")
        }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return }
        let listener = try UnixSocket.listen(at: socketPath)
        let server = Server(sessions: KeptSessions(connect: connect))
        let accepting = Atomic(true)
        let acceptor = Thread {
            server.accept(on: listener)
            accepting.store(false, ordering: .releasing)
        }
        acceptor.name = "keel-keeper accept"
        acceptor.start()
        let started = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            await server.sessions.closeIdle(after: persist)
            let quiet = await server.sessions.isEmpty && server.clients.load(ordering: .acquiring) == 0
            if quiet && ContinuousClock.now - started >= .seconds(2) { break }
        }
        unlink(socketPath)
        shutdown(listener, Int32(SHUT_RDWR))
        // Closed only once no accept can still use the descriptor (or a later one of the same number).
        while accepting.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(10)) }
        close(listener)
        await server.sessions.closeAll()
    }

    /// Accepts clients and serves each on a thread of its own (their reads block; the sessions' work does not).
    private final class Server: Sendable {
        let sessions: KeptSessions
        /// Clients being served now.
        let clients = Atomic<Int>(0)

        init(sessions: KeptSessions) { self.sessions = sessions }

        func accept(on listener: Int32) {
            while true {
                let client = Glibc.accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                clients.add(1, ordering: .releasing)
                let thread = Thread {
                    self.serve(client)
                    close(client)
                    self.clients.subtract(1, ordering: .releasing)
                }
                thread.start()
            }
        }

        private func serve(_ client: Int32) {
            guard UnixSocket.peerIsThisUser(client), let first = KeeperFrame.read(from: client) else { return }
            switch first.kind {
            case .lease:
                guard let request = try? first.decode(LeaseRequest.self) else { return }
                serveLease(request, client)
            case .run:
                guard let request = try? first.decode(RunRequest.self),
                    let input = KeeperFrame.read(from: client), input.kind == .input
                else { return }
                serveRun(request, input: input.payload, client)
            default:
                return
            }
        }

        /// Opens or reuses the session and holds it until the client closes the socket.
        private func serveLease(_ request: LeaseRequest, _ client: Int32) {
            let sessions = self.sessions
            let leased = waitFor { await Result { try await sessions.lease(request) } }
            switch leased {
            case .success(let grant):
                _ = (try? KeeperFrame(.leased, json: grant))?.write(to: client)
                while KeeperFrame.read(from: client) != nil {}
                waitFor { await sessions.release(grant.session) }
            case .failure(let error):
                _ = (try? KeeperFrame(.failure, json: FailureMessage(error, host: request.configuration.host)))?
                    .write(to: client)
            }
        }

        /// Runs the command and sends its output and end; a `cancel`, or the client going away, cancels it.
        private func serveRun(_ request: RunRequest, input: [UInt8], _ client: Int32) {
            let writes = NSLock()
            let send = { @Sendable (frame: KeeperFrame) in writes.withLock { _ = frame.write(to: client) } }
            let done = DispatchSemaphore(value: 0)
            let task = Task { [sessions] in
                defer { done.signal() }
                await Self.execute(request, input: input, on: sessions, send: send)
            }
            while let frame = KeeperFrame.read(from: client) {
                if frame.kind == .cancel { task.cancel() }
            }
            task.cancel()
            done.wait()
        }

        private static func execute(
            _ request: RunRequest, input: [UInt8], on sessions: KeptSessions,
            send: @escaping @Sendable (KeeperFrame) -> Void
        ) async {
            let failed = { @Sendable (error: any Error) in
                if let frame = try? KeeperFrame(.failure, json: FailureMessage(error, host: "")) { send(frame) }
            }
            guard let transport = await sessions.transport(request.session) else {
                failed(SSHError(.disconnected, host: "", operation: "exec", message: "the kept session has ended"))
                return
            }
            do {
                let become: Become? = request.becomeUser.map { Become(user: $0) }
                let timeout: Duration? = request.timeoutMilliseconds.map { Duration.milliseconds($0) }
                let observe: OutputObserver? = request.observe ? { @Sendable in send(KeeperFrame(.output, $0)) } : nil
                let result = try await transport.run(
                    request.command, input: input, become: become, timeout: timeout, outputLimit: request.outputLimit,
                    observe: observe)
                send(KeeperFrame(.stdout, result.stdout))
                send(KeeperFrame(.stderr, result.stderr))
                if let frame = try? KeeperFrame(
                    .exit, json: ExitMessage(exitStatus: result.exitStatus, signal: result.signal))
                {
                    send(frame)
                }
            } catch {
                failed(error)
            }
        }

        /// Waits on this (non-pool) thread for `body`.
        @discardableResult
        private func waitFor<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
            let box = Mutex<Value?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                let value = await body()
                box.withLock { $0 = value }
                done.signal()
            }
            done.wait()
            return box.withLock { $0.take()! }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
