internal import CLibSSH2
import KeelCore

/// Runs one command on its own channel: feeds its standard input, drains stdout and stderr together (so neither
/// can fill the window and stall the other), then collects the exit status and signal.
final class ExecOperation: SessionOperation, @unchecked Sendable {
    private enum State { case queued, opening, starting, running, closing, awaitingClose, releasing }

    let control: OperationControl
    private let command: String
    private let input: [UInt8]
    private let outputLimit: Int
    private let observe: OutputObserver?
    private let commandDeadline: ContinuousClock.Instant?
    private var completion: Completion<ExecResult>
    private var state = State.queued
    private var backoff = RefusalBackoff()
    private var channel: OpaquePointer?
    private var inputOffset = 0
    private var inputClosed = false
    /// Whether the last write found the channel's window full: a window adjustment may then arrive during a read.
    private var windowWasFull = false
    private var stdout: [UInt8] = []
    private var stderr: [UInt8] = []
    /// Once aborted, how long closing the channel may take before it is abandoned to the session's teardown.
    private var abandonAt: ContinuousClock.Instant?

    init(
        command: String, input: [UInt8], timeout: Duration?, outputLimit: Int, observe: OutputObserver?,
        control: OperationControl, completion: CheckedContinuation<ExecResult, any Error>
    ) {
        self.command = command
        self.input = input
        self.outputLimit = outputLimit
        self.observe = observe
        self.commandDeadline = timeout.map { .now + $0 }
        self.control = control
        self.completion = Completion(completion)
    }

    var deadline: ContinuousClock.Instant? { abandonAt ?? commandDeadline }
    var retryAt: ContinuousClock.Instant? { state == .queued ? backoff.notBefore : nil }

    var hasArrived: Bool {
        guard state == .running, let channel else { return false }
        return libssh2_poll_channel_read(channel, 1) == 1 || libssh2_channel_eof(channel) == 1
            || (windowWasFull && libssh2_channel_window_write_ex(channel, nil) > 0)
    }

    func abort(_ error: any Error) {
        guard !completion.isDelivered else { return }
        completion.deliver(.failure(error))
        abandonAt = .now + .seconds(3)
    }

    func step(_ owner: SessionOwner) -> StepOutcome {
        guard let session = owner.session else { return .finished }
        var moved = false
        while true {
            switch state {
            case .queued:
                if completion.isDelivered { return .finished }
                guard backoff.isDue, owner.acquireSetup(self) else { return moved ? .progressed : .blocked }
                state = .opening

            case .opening:
                guard let opened = keel_channel_open_session(session) else {
                    if libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN {
                        return moved ? .progressed : .blocked
                    }
                    owner.releaseSetup(self)
                    if owner.shouldRetryRefusedChannel(&backoff) {
                        state = .queued
                        return .requeue
                    }
                    return fail(
                        owner.failure(.channelFailed, operation: "exec", message: "the server refused a new channel"))
                }
                channel = opened
                owner.channelOpened()
                state = .starting
                moved = true

            case .starting:
                let bytes = Array(command.utf8)
                let rc = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        keel_channel_exec(channel, $0.baseAddress, UInt32($0.count))
                    }
                }
                if rc == LIBSSH2_ERROR_EAGAIN { return moved ? .progressed : .blocked }
                owner.releaseSetup(self)
                if rc != 0 {
                    let error = owner.failure(
                        .channelFailed, operation: "exec", message: "the server refused to run the command")
                    completion.deliver(.failure(error))
                    state = .closing
                    continue
                }
                state = completion.isDelivered ? .closing : .running
                moved = true

            case .running:
                if completion.isDelivered {
                    state = .closing
                    continue
                }
                switch pump(owner, channel!) {
                case .moved: moved = true
                case .idle: return moved ? .progressed : .blocked
                case .ended: state = .closing
                case .failed(let error):
                    completion.deliver(.failure(error))
                    state = .closing
                }

            case .closing:
                let rc = libssh2_channel_close(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                state = .awaitingClose
                moved = true

            case .awaitingClose:
                let rc = libssh2_channel_wait_closed(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                if !completion.isDelivered {
                    completion.deliver(
                        .success(
                            ExecResult(
                                stdout: stdout, stderr: stderr, exitStatus: libssh2_channel_get_exit_status(channel),
                                signal: exitSignal(session, channel!))))
                }
                state = .releasing

            case .releasing:
                let rc = libssh2_channel_free(channel)
                if rc == LIBSSH2_ERROR_EAGAIN { return waitToClose(owner, moved: moved) }
                return release(owner)
            }
        }
    }

    private enum Pump { case moved, idle, ended, failed(SSHError) }

    /// Writes pending input and reads whatever output has arrived on both streams.
    private func pump(_ owner: SessionOwner, _ channel: OpaquePointer) -> Pump {
        var moved = false
        if inputOffset < input.count {
            windowWasFull = libssh2_channel_window_write_ex(channel, nil) == 0
            let written = input.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    keel_channel_write(channel, $0.baseAddress! + inputOffset, $0.count - inputOffset)
                }
            }
            if written > 0 {
                inputOffset += written
                moved = true
            } else if written != Int(LIBSSH2_ERROR_EAGAIN) {
                return .failed(
                    owner.failure(.channelFailed, operation: "exec", message: "writing the command's input failed"))
            }
        }
        if inputOffset == input.count, !inputClosed {
            let rc = libssh2_channel_send_eof(channel)
            if rc == 0 {
                inputClosed = true
                moved = true
            } else if rc != LIBSSH2_ERROR_EAGAIN {
                return .failed(
                    owner.failure(.channelFailed, operation: "exec", message: "closing the command's input failed"))
            }
        }
        var streamsAtEnd = 0
        for stream: Int32 in [0, SSH_EXTENDED_DATA_STDERR] {
            while true {
                let count = keel_channel_read(
                    channel, stream, owner.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                    owner.readBuffer.count)
                if count > 0 {
                    let chunk = UnsafeRawBufferPointer(rebasing: owner.readBuffer[0..<count])
                    if stream == 0 { stdout.append(contentsOf: chunk) } else { stderr.append(contentsOf: chunk) }
                    observe?(Array(chunk))
                    moved = true
                    if stdout.count + stderr.count > outputLimit {
                        return .failed(
                            SSHError(
                                .outputLimitExceeded, host: owner.host, operation: "exec",
                                message: "the command wrote more than \(outputLimit) bytes of output"))
                    }
                    continue
                }
                if count == 0 { streamsAtEnd += 1 }
                if count < 0, count != Int(LIBSSH2_ERROR_EAGAIN) {
                    return .failed(
                        owner.failure(.channelFailed, operation: "exec", message: "reading the command's output failed")
                    )
                }
                break
            }
        }
        if streamsAtEnd == 2, libssh2_channel_eof(channel) == 1 { return .ended }
        return moved ? .moved : .idle
    }

    private func exitSignal(_ session: OpaquePointer, _ channel: OpaquePointer) -> String? {
        var name: UnsafeMutablePointer<CChar>?
        var length = 0
        guard libssh2_channel_get_exit_signal(channel, &name, &length, nil, nil, nil, nil) == 0, let name else {
            return nil
        }
        defer { libssh2_free(session, name) }
        return length > 0 ? String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self) : nil
    }

    /// While closing: wait for the server, unless an aborted command has waited long enough to be abandoned.
    private func waitToClose(_ owner: SessionOwner, moved: Bool) -> StepOutcome {
        if let abandonAt, abandonAt <= .now { return release(owner) }
        return moved ? .progressed : .blocked
    }

    private func fail(_ error: SSHError) -> StepOutcome {
        completion.deliver(.failure(error))
        return .finished
    }

    /// Gives the channel slot back. A channel abandoned mid-close is freed with the session.
    private func release(_ owner: SessionOwner) -> StepOutcome {
        owner.releaseSetup(self)
        if channel != nil { owner.channelReleased() }
        channel = nil
        return .finished
    }
}
