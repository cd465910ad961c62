internal import CLibSSH2
import Foundation

/// Opens the TCP connection under an SSH session: resolved, connected within a deadline, tuned for small messages.
enum TCPSocket {
    /// Connects to `host:port`, trying each resolved address until one answers before `deadline`.
    ///
    /// The socket gets `TCP_NODELAY` (each command round trip otherwise waits ~40 ms on delayed ACKs) and TCP
    /// keepalive, so a peer that vanished is noticed even while no command runs.
    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant, displayHost: String)
        throws(SSHError) -> Int32
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SSHError(
                .connectFailed, host: displayHost, operation: "connect",
                message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }

        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            switch attempt(fd, address.pointee, deadline: deadline) {
            case .connected:
                _ = keel_set_tcp_nodelay(fd)
                _ = keel_set_tcp_keepalive(fd, 30, 10, 3)
                return fd
            case .failed(let reason):
                close(fd)
                lastError = reason
            case .timedOut:
                close(fd)
                throw SSHError(
                    .timedOut, host: displayHost, operation: "connect",
                    message: "no answer from \(host) port \(port) before the connect timeout")
            }
        }
        throw SSHError(.connectFailed, host: displayHost, operation: "connect", message: lastError)
    }

    private enum Attempt { case connected, failed(String), timedOut }

    private static func attempt(_ fd: Int32, _ address: addrinfo, deadline: ContinuousClock.Instant) -> Attempt {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(fd, address.ai_addr, address.ai_addrlen) == 0 { return .connected }
        guard errno == EINPROGRESS else { return .failed(String(cString: strerror(errno))) }
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, PollTimeout.milliseconds(until: deadline))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { return .timedOut }
            break
        }
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
        return socketError == 0 ? .connected : .failed(String(cString: strerror(socketError)))
    }
}

/// Converts deadlines into `poll(2)` timeouts.
enum PollTimeout {
    /// Whole milliseconds from now until `deadline`, rounded up, never negative.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
