internal import CLibSSH2
import Foundation

/// A TCP connection the server opens on our behalf (`direct-tcpip`: what OpenSSH's ProxyJump asks of a jump
/// host), joined to one end of a local socket pair: bytes are copied both ways until both sides have ended.
///
/// Its completion hands the caller the pair's other end as soon as the channel is open; the operation then goes
/// on copying for as long as the tunnel lives, so it keeps its channel slot until then.
final class ForwardOperation: SessionOperation, @unchecked Sendable {
    private enum State { case queued, opening, forwarding, closing, awaitingClose, releasing }

    let control: OperationControl
    private let host: String
    private let port: Int
    /// Our end of the pair; the other end goes to the caller.
    private var local: Int32
    private let remoteEnd: Int32
    private var completion: Completion<Int32>
    private var state = State.queued
    private var channel: OpaquePointer?
    private let openDeadline: ContinuousClock.Instant
    /// Bytes read on one side and not yet written to the other.
    private var toRemote: [UInt8] = []
    private var toLocal: [UInt8] = []
    private var localEnded = false
    private var remoteEnded = false
    private var eofSent = false
    /// Whether the local side was told the remote one ended.
    private var localShutDown = false
    /// Whether the caller took the pair's other end (it closes it then).
    private var handedOver = false
    /// Set by ``abort(_:)``: the tunnel is torn down at the next step.
    private var ending = false
    /// Once ending, how long closing the channel may take before it is abandoned to the session's teardown.
    private var abandonAt: ContinuousClock.Instant?

    init(
        host: String, port: Int, timeout: Duration, control: OperationControl,
        completion: CheckedContinuation<Int32, any Error>
    ) {
        var pair: [Int32] = [-1, -1]
        if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 {
            // Both ends non-blocking, as a session's TCP socket is: libssh2 waits for its socket itself.
            for fd in pair {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        local = pair[0]
        remoteEnd = pair[1]
        self.host = host
        self.port = port
        self.openDeadline = .now + timeout
        self.control = control
        self.completion = Completion(completion)
    }

    deinit {
        if local >= 0 { close(local) }
        if !handedOver, remoteEnd >= 0 { close(remoteEnd) }
    }

    var deadline: ContinuousClock.Instant? {
        abandonAt ?? (state == .queued || state == .opening ? openDeadline : nil)
    }
    var retryAt: ContinuousClock.Instant? { nil }

    var descriptor: pollfd? {
        guard state == .forwarding, local >= 0 else { return nil }
        var events: Int32 = 0
        if toRemote.isEmpty && !localEnded { events |= Int32(POLLIN) }
        if !toLocal.isEmpty { events |= Int32(POLLOUT) }
        return events == 0 ? nil : pollfd(fd: local, events: Int16(events), revents: 0)
    }

    func pastDeadline(on jumpHost: String) -> SSHError {
        SSHError(
            .timedOut, host: jumpHost, operation: "forward",
            message: "as a jump host, it did not open the tunnel to \(host) port \(port) in time")
    }

    func abort(_ error: any Error) {
        if !completion.isDelivered { completion.deliver(.failure(error)) }
        guard !ending else { return }
        ending = true
        abandonAt = .now + .seconds(3)
    }

    func step(_ owner: SessionOwner) -> StepOutcome {
        guard let session = owner.session else { return .finished }
        var moved = false
        while true {
            switch state {
            case .queued:
                if ending || local < 0 {
                    if !completion.isDelivered {
                        completion.deliver(
                            .failure(
                                SSHError(
                                    .channelFailed, host: owner.host, operation: "forward",
                                    message: "cannot make a local socket pair for the tunnel")))
                    }
                    return .finished
                }
                guard owner.acquireSetup(self) else { return moved ? .progressed : .blocked }
                state = .opening

            case .opening:
                guard let opened = libssh2_channel_direct_tcpip_ex(session, host, Int32(port), "127.0.0.1", 22) else {
                    if libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN {
                        return moved ? .progressed : .blocked
                    }
                    owner.releaseSetup(self)
                    completion.deliver(
                        .failure(
                            owner.failure(
                                .connectFailed, operation: "forward",
                                message: "as a jump host, it could not connect to \(host) port \(port)")))
                    return .finished
                }
                owner.releaseSetup(self)
                channel = opened
                owner.channelOpened()
                handedOver = true
                completion.deliver(.success(remoteEnd))
                state = .forwarding
                moved = true

            case .forwarding:
                if ending || (localEnded && eofSent && remoteEnded && toLocal.isEmpty) {
                    state = .closing
                    continue
                }
                guard copy(owner, channel!) else { return moved ? .progressed : .blocked }
                moved = true

            case .closing:
                if local >= 0 {
                    close(local)
                    local = -1
                }
                let rc = libssh2_channel_close(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                state = .awaitingClose
                moved = true

            case .awaitingClose:
                let rc = libssh2_channel_wait_closed(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                state = .releasing

            case .releasing:
                let rc = libssh2_channel_free(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                return release(owner)
            }
        }
    }

    /// Copies what can be copied without waiting, each way; false when nothing moved. A side that fails ends
    /// the tunnel.
    private func copy(_ owner: SessionOwner, _ channel: OpaquePointer) -> Bool {
        var moved = false
        let buffer = owner.readBuffer
        // Local → remote.
        if toRemote.isEmpty && !localEnded {
            let count = read(local, buffer.baseAddress, buffer.count)
            if count > 0 {
                toRemote = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                moved = true
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                localEnded = true
                moved = true
            }
        }
        if !toRemote.isEmpty {
            let written = toRemote.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { keel_channel_write(channel, $0.baseAddress, $0.count) }
            }
            if written > 0 {
                toRemote.removeFirst(written)
                moved = true
            } else if written != Int(LIBSSH2_ERROR_EAGAIN) {
                ending = true
                return true
            }
        }
        if localEnded && toRemote.isEmpty && !eofSent {
            let rc = libssh2_channel_send_eof(channel)
            if rc != LIBSSH2_ERROR_EAGAIN {
                eofSent = true
                moved = true
            }
        }
        // Remote → local.
        if toLocal.isEmpty && !remoteEnded {
            let count = keel_channel_read(
                channel, 0, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count)
            if count > 0 {
                toLocal = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                moved = true
            } else if (count == 0 && libssh2_channel_eof(channel) == 1)
                || (count < 0 && count != Int(LIBSSH2_ERROR_EAGAIN))
            {
                remoteEnded = true
                moved = true
            }
        }
        if !toLocal.isEmpty {
            let written = toLocal.withUnsafeBytes { write(local, $0.baseAddress, $0.count) }
            if written > 0 {
                toLocal.removeFirst(written)
                moved = true
            } else if written < 0 && errno != EAGAIN && errno != EINTR {
                // The local side is gone: nothing it would read can reach it.
                toLocal = []
                localEnded = true
                moved = true
            }
        }
        if remoteEnded && toLocal.isEmpty && !localShutDown {
            shutdown(local, Int32(SHUT_WR))
            localShutDown = true
        }
        return moved
    }

    /// While closing: wait for the server, unless the tunnel has waited long enough to be abandoned.
    private func waitToClose(_ owner: SessionOwner, moved: Bool) -> StepOutcome {
        if let abandonAt, abandonAt <= .now { return release(owner) }
        return moved ? .progressed : .blocked
    }

    /// Gives the channel slot back. A channel abandoned mid-close is freed with the session.
    private func release(_ owner: SessionOwner) -> StepOutcome {
        owner.releaseSetup(self)
        if channel != nil { owner.channelReleased() }
        channel = nil
        if local >= 0 {
            close(local)
            local = -1
        }
        return .finished
    }
}
