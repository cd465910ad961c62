internal import CLibSSH2
import Foundation
import Synchronization

/// The one thread that owns a libssh2 session and everything on it.
///
/// libssh2 sessions are not thread-safe, and its calls block; so each connection gets a dedicated thread (never
/// Swift's cooperative pool) running a non-blocking session in a `poll(2)` loop. Callers hand it
/// ``SessionOperation``s through a locked inbox and a wake-up pipe; the thread multiplexes all of them over the
/// one session, at most ``SSHConfiguration/maxChannels`` channels at a time, and queues the rest.
final class SessionOwner: @unchecked Sendable {
    let configuration: SSHConfiguration
    private let inbox = Mutex(Inbox())
    /// The connection to the last jump host, which carries the tunnel; closed after this session, and awaited by
    /// ``close()``: a process that exits while a jump host's thread still disconnects would pull OpenSSL's state
    /// from under that thread.
    private let jumpConnection = Mutex<SSHConnection?>(nil)
    /// The host key verified at the handshake.
    private let verifiedKey = Mutex<HostKeyVerifier.HostKey?>(nil)
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Everything below is touched only by the owning thread.
    private(set) var session: OpaquePointer?
    /// The session's socket: a TCP connection, or the local end of a jump host's tunnel (set before the thread
    /// starts).
    private var socket: Int32 = -1
    private var waiting: [any SessionOperation] = []
    private var active: [any SessionOperation] = []
    private var channelLimit: Int
    private var setupHolder: ObjectIdentifier?
    private var fatalError: SSHError?
    /// Channels currently allocated by active operations.
    private(set) var openChannels = 0
    /// Scratch space for reads, shared by the operations (they run one at a time on this thread).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    private struct Inbox {
        var submitted: [any SessionOperation] = []
        var closeRequested = false
        /// Set when the thread has stopped serving: new work fails at once with it.
        var stopped: SSHError?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    init(configuration: SSHConfiguration) {
        self.configuration = configuration
        self.channelLimit = max(1, configuration.maxChannels)
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
        readBuffer.deallocate()
    }

    var host: String { configuration.displayHost }

    /// Whether known_hosts still holds the key this session verified, and its jump hosts' theirs.
    func hostKeysStillKnown() -> Bool {
        guard let key = verifiedKey.withLock({ $0 }), HostKeyVerifier.stillKnown(key, configuration) else {
            return false
        }
        return jumpConnection.withLock { $0 }?.hostKeysStillKnown() ?? true
    }

    // MARK: - Called from any thread

    /// Starts the thread; returns once the session is authenticated, or throws why it could not be. Through jump
    /// hosts, the session runs in a tunnel the last of them opens (each reached through those before it).
    func start() async throws {
        do {
            if let last = configuration.jumpHosts.last {
                var jump = last
                jump.jumpHosts = Array(configuration.jumpHosts.dropLast())
                let connection = try await SSHConnection.connect(jump)
                jumpConnection.withLock { $0 = connection }
                socket = try await connection.forward(
                    to: configuration.host, port: configuration.port, timeout: configuration.connectTimeout)
            }
            try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
                let thread = Thread { self.main(ready) }
                thread.name = "keel-ssh \(configuration.displayHost)"
                thread.start()
            }
        } catch {
            await closeJumpConnection()
            throw error
        }
    }

    /// Queues `operation`; false when the connection no longer serves (the caller reports ``stoppedError``).
    func enqueue(_ operation: any SessionOperation) -> Bool {
        let accepted = inbox.withLock { inbox in
            guard inbox.stopped == nil, !inbox.closeRequested else { return false }
            inbox.submitted.append(operation)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    /// Why new work is refused, once the connection has stopped.
    var stoppedError: SSHError {
        inbox.withLock { $0.stopped }
            ?? SSHError(.disconnected, host: host, operation: "exec", message: "the connection is closed")
    }

    /// Interrupts the thread's `poll` so it looks at the inbox and cancellation flags.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Asks the thread to end every operation and disconnect; returns when it has, and the jump host's connection
    /// that carried it too.
    func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let alreadyStopped = inbox.withLock { inbox in
                inbox.closeRequested = true
                if inbox.stopped != nil { return true }
                inbox.closeWaiters.append(done)
                return false
            }
            if alreadyStopped { done.resume() } else { wake() }
        }
        await closeJumpConnection()
    }

    private func closeJumpConnection() async {
        let connection = jumpConnection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        await connection?.close()
    }

    /// Asks the thread to stop without waiting for it (used when the last reference goes away).
    func requestClose() {
        inbox.withLock { $0.closeRequested = true }
        wake()
    }

    // MARK: - The owning thread

    private func main(_ ready: CheckedContinuation<Void, any Error>) {
        do {
            try establish()
            ready.resume()
            serve()
        } catch {
            ready.resume(throwing: error)
            fatalError = error
        }
        teardown()
    }

    /// TCP connect, handshake, host key check and authentication, in blocking mode within the connect timeout.
    private func establish() throws(SSHError) {
        guard LibSSH2.initialized else {
            throw SSHError(.handshakeFailed, host: host, operation: "connect", message: "libssh2 failed to initialise")
        }
        let deadline = ContinuousClock.now + configuration.connectTimeout
        if socket < 0 {
            socket = try TCPSocket.connect(
                host: configuration.host, port: configuration.port, deadline: deadline, displayHost: host)
        }
        guard let session = keel_session_init() else {
            throw SSHError(.handshakeFailed, host: host, operation: "handshake", message: "cannot allocate a session")
        }
        self.session = session
        libssh2_session_set_blocking(session, 1)
        libssh2_session_set_timeout(session, Int(PollTimeout.milliseconds(until: deadline)))
        _ = libssh2_session_method_pref(session, LIBSSH2_METHOD_HOSTKEY, HostKeyVerifier.preference)
        if libssh2_session_handshake(session, socket) != 0 {
            let (code, message) = LibSSH2.lastError(session)
            let closedEarly = code == LIBSSH2_ERROR_SOCKET_RECV || code == LIBSSH2_ERROR_SOCKET_DISCONNECT
            throw SSHError(
                code == LIBSSH2_ERROR_TIMEOUT ? .timedOut : .handshakeFailed, host: host, operation: "handshake",
                message: closedEarly
                    ? "the server closed the connection during the SSH handshake; check the server's log (is it an SSH server, does it accept this client, is MaxStartups reached?)"
                    : "the SSH handshake failed",
                libssh2Code: code, libssh2Message: message)
        }
        let key = try HostKeyVerifier.verify(session: session, configuration: configuration)
        verifiedKey.withLock { $0 = key }
        libssh2_session_set_timeout(session, Int(PollTimeout.milliseconds(until: deadline)))
        try Authenticator.authenticate(session: session, configuration: configuration)
        libssh2_session_set_timeout(session, 0)
        libssh2_keepalive_config(session, 1, UInt32(max(1, configuration.keepaliveInterval)))
        libssh2_session_set_blocking(session, 0)
    }

    private func serve() {
        while true {
            let (submitted, closeRequested) = inbox.withLock { inbox in
                defer { inbox.submitted = [] }
                return (inbox.submitted, inbox.closeRequested)
            }
            waiting.append(contentsOf: submitted)
            if closeRequested { return }
            advance()
            if fatalError != nil { return }
            sendKeepalive()
            waitForEvents()
        }
    }

    /// Steps every active operation until a whole round moves nothing: a packet read for one channel (or one
    /// stream) may have been queued while another was being stepped, so one round is not enough. A quiet round is
    /// followed by one more when an operation's packets have arrived meanwhile (``SessionOperation/hasArrived``):
    /// they are off the socket, and `poll` would not wake for them.
    private func advance() {
        var moved = true
        // Whether this round is the one more for arrivals: when it moves nothing either, waiting is right.
        var forArrivals = false
        while moved {
            moved = false
            admit()
            var index = 0
            while index < active.count {
                let operation = active[index]
                expire(operation)
                switch operation.step(self) {
                case .progressed:
                    moved = true
                    index += 1
                case .blocked:
                    index += 1
                case .finished:
                    active.remove(at: index)
                    moved = true
                case .requeue:
                    active.remove(at: index)
                    waiting.insert(operation, at: 0)
                    channelLimit = max(1, active.count)
                }
                if fatalError != nil { return }
            }
            if moved {
                forArrivals = false
            } else if !forArrivals, active.contains(where: \.hasArrived) {
                moved = true
                forArrivals = true
            }
        }
    }

    private func admit() {
        while active.count < channelLimit, !waiting.isEmpty {
            active.append(waiting.removeFirst())
        }
        waiting.removeAll(where: expire)
    }

    /// Aborts an operation whose task was cancelled or whose deadline passed; returns whether it did.
    @discardableResult
    private func expire(_ operation: any SessionOperation) -> Bool {
        if operation.control.isCancelled {
            operation.abort(CancellationError())
        } else if isPast(operation.deadline) {
            operation.abort(operation.pastDeadline(on: host))
        } else {
            return false
        }
        return true
    }

    private func isPast(_ deadline: ContinuousClock.Instant?) -> Bool {
        deadline.map { $0 <= .now } ?? false
    }

    private func sendKeepalive() {
        guard let session else { return }
        var next: Int32 = 0
        _ = libssh2_keepalive_send(session, &next)
    }

    private func waitForEvents() {
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if !active.isEmpty, let session {
            let directions = libssh2_session_block_directions(session)
            var events: Int32 = 0
            if directions & LIBSSH2_SESSION_BLOCK_INBOUND != 0 { events |= Int32(POLLIN) }
            if directions & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 { events |= Int32(POLLOUT) }
            descriptors.append(pollfd(fd: socket, events: Int16(events == 0 ? Int32(POLLIN) : events), revents: 0))
        }
        descriptors += active.compactMap(\.descriptor)
        var timeout = Int32(max(1, configuration.keepaliveInterval) * 1000)
        // A deadline already past was acted on in `advance` (the operation aborted); counting it again would make
        // every poll return at once, and the thread spin while an aborted transfer waits on the network.
        let now = ContinuousClock.now
        for operation in active + waiting {
            for instant in [operation.deadline, operation.retryAt].compactMap(\.self) where instant > now {
                timeout = min(timeout, PollTimeout.milliseconds(until: instant))
            }
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &drain, drain.count) > 0 {}
    }

    private func teardown() {
        let error =
            fatalError.map {
                SSHError(
                    .disconnected, host: host, operation: "exec", message: "the connection was lost: \($0.message)")
            }
            ?? SSHError(.disconnected, host: host, operation: "exec", message: "the connection was closed")
        let (late, waiters) = inbox.withLock { inbox in
            inbox.stopped = error
            defer { inbox.submitted = []; inbox.closeWaiters = [] }
            return (inbox.submitted, inbox.closeWaiters)
        }
        for operation in active + waiting + late { operation.abort(error) }
        active = []
        waiting = []
        if let session {
            libssh2_session_set_blocking(session, 1)
            libssh2_session_set_timeout(session, 2000)
            if fatalError == nil { _ = keel_session_disconnect(session, "keel: done") }
            libssh2_session_free(session)
            self.session = nil
        }
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Services for operations (owning thread only)

    /// Takes the right to open a channel. libssh2 1.10 keeps channel-open and request state per session, so
    /// only one operation may be between "open" and "started" at a time.
    func acquireSetup(_ operation: AnyObject) -> Bool {
        let id = ObjectIdentifier(operation)
        if setupHolder == nil { setupHolder = id }
        return setupHolder == id
    }

    func releaseSetup(_ operation: AnyObject) {
        if setupHolder == ObjectIdentifier(operation) { setupHolder = nil }
    }

    func channelOpened() { openChannels += 1 }
    func channelReleased() { openChannels -= 1 }

    /// Builds the error for a failed libssh2 call, and marks the whole session dead when the failure was fatal.
    func failure(_ code: SSHError.Code, operation: String, message: String) -> SSHError {
        let (libssh2Code, libssh2Message) = session.map(LibSSH2.lastError) ?? (0, "")
        let error = SSHError(
            code, host: host, operation: operation, message: message, libssh2Code: libssh2Code,
            libssh2Message: libssh2Message)
        if LibSSH2.isSessionFatal(libssh2Code) {
            fatalError = error
            return SSHError(
                .disconnected, host: host, operation: operation, message: "the connection was lost (\(message))",
                libssh2Code: libssh2Code, libssh2Message: libssh2Message)
        }
        return error
    }

    /// Whether a refused channel open should be tried again (true) or fail (false).
    ///
    /// A server with a lower `MaxSessions` refuses channels while others are open, and OpenSSH frees a slot only
    /// some moments after a channel closes; so a refusal waits and retries, with `backoff` spacing the attempts.
    func shouldRetryRefusedChannel(_ backoff: inout RefusalBackoff) -> Bool {
        guard let session, LibSSH2.lastError(session).code == LIBSSH2_ERROR_CHANNEL_FAILURE else { return false }
        return backoff.schedule(othersOpen: openChannels > 0)
    }
}
