internal import CLibSSH2

/// Moves one file over SFTP on its own channel: an upload writes a new file (created `0600`, so nothing can read
/// it before its final mode is set), a download reads one whole.
final class FileTransferOperation: SessionOperation, @unchecked Sendable {
    enum Direction {
        /// Writes `bytes` to a file that must not exist yet, then sets `mode`.
        case upload(bytes: [UInt8], mode: UInt32)
        /// Reads a file of at most `limit` bytes.
        case download(limit: Int)
    }

    private enum State { case queued, starting, opening, transferring, settingMode, closingFile, shuttingDown }

    let control: OperationControl
    let deadline: ContinuousClock.Instant?
    var retryAt: ContinuousClock.Instant? { state == .queued ? backoff.notBefore : nil }
    private let path: String
    private let direction: Direction
    private var completion: Completion<[UInt8]>
    private var state = State.queued
    private var backoff = RefusalBackoff()
    private var sftp: OpaquePointer?
    private var handle: OpaquePointer?
    private var offset = 0
    private var received: [UInt8] = []
    private var failure: (any Error)?

    init(
        path: String, direction: Direction, timeout: Duration?, control: OperationControl,
        completion: CheckedContinuation<[UInt8], any Error>
    ) {
        self.path = path
        self.direction = direction
        self.deadline = timeout.map { .now + $0 }
        self.control = control
        self.completion = Completion(completion)
    }

    private var operationName: String {
        if case .upload = direction { "upload" } else { "download" }
    }

    func abort(_ error: any Error) {
        completion.deliver(.failure(error))
        if failure == nil { failure = error }
    }

    func step(_ owner: SessionOwner) -> StepOutcome {
        guard let session = owner.session else { return .finished }
        var moved = false
        func waiting() -> StepOutcome { moved ? .progressed : .blocked }
        func wouldBlock() -> Bool { libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN }

        while true {
            switch state {
            case .queued:
                if completion.isDelivered { return .finished }
                guard backoff.isDue, owner.acquireSetup(self) else { return waiting() }
                state = .starting

            case .starting:
                guard let opened = libssh2_sftp_init(session) else {
                    if wouldBlock() { return waiting() }
                    owner.releaseSetup(self)
                    if owner.shouldRetryRefusedChannel(&backoff) {
                        state = .queued
                        return .requeue
                    }
                    completion.deliver(
                        .failure(owner.failure(.transferFailed, operation: operationName, message: "cannot start SFTP"))
                    )
                    return .finished
                }
                owner.releaseSetup(self)
                owner.channelOpened()
                sftp = opened
                state = failure == nil ? .opening : .shuttingDown
                moved = true

            case .opening:
                if failure != nil { state = .shuttingDown; continue }
                let flags: UInt
                let mode: Int
                switch direction {
                case .upload:
                    flags = UInt(LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC | LIBSSH2_FXF_EXCL)
                    mode = 0o600
                case .download:
                    flags = UInt(LIBSSH2_FXF_READ)
                    mode = 0
                }
                guard let opened = keel_sftp_open(sftp, path, flags, mode) else {
                    if wouldBlock() { return waiting() }
                    fail(owner, "cannot open \(path)")
                    continue
                }
                handle = opened
                state = .transferring
                moved = true

            case .transferring:
                if failure != nil { state = .closingFile; continue }
                switch direction {
                case .upload(let bytes, _):
                    if offset == bytes.count { state = .settingMode; continue }
                    let count = min(bytes.count - offset, 1 << 20)
                    let written = bytes.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) {
                            libssh2_sftp_write(handle, $0.baseAddress! + offset, count)
                        }
                    }
                    if written == Int(LIBSSH2_ERROR_EAGAIN) { return waiting() }
                    guard written > 0 else { fail(owner, "writing \(path) failed"); continue }
                    offset += written
                    moved = true
                case .download(let limit):
                    let count = libssh2_sftp_read(
                        handle, owner.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                        owner.readBuffer.count)
                    if count == Int(LIBSSH2_ERROR_EAGAIN) { return waiting() }
                    if count < 0 { fail(owner, "reading \(path) failed"); continue }
                    if count == 0 { state = .closingFile; continue }
                    received.append(contentsOf: UnsafeRawBufferPointer(rebasing: owner.readBuffer[0..<count]))
                    if received.count > limit {
                        abort(
                            SSHError(
                                .outputLimitExceeded, host: owner.host, operation: "download",
                                message: "\(path) is larger than \(limit) bytes"))
                    }
                    moved = true
                }

            case .settingMode:
                guard case .upload(_, let mode) = direction, failure == nil else { state = .closingFile; continue }
                var attributes = LIBSSH2_SFTP_ATTRIBUTES()
                attributes.flags = UInt(LIBSSH2_SFTP_ATTR_PERMISSIONS)
                attributes.permissions = UInt(mode)
                let rc = keel_sftp_fsetstat(handle, &attributes)
                if rc == LIBSSH2_ERROR_EAGAIN { return waiting() }
                if rc != 0 { fail(owner, "cannot set the mode of \(path)") }
                state = .closingFile
                moved = true

            case .closingFile:
                let rc = keel_sftp_close(handle)
                if rc == LIBSSH2_ERROR_EAGAIN { return waiting() }
                if rc != 0 && failure == nil { fail(owner, "closing \(path) failed") }
                handle = nil
                state = .shuttingDown
                moved = true

            case .shuttingDown:
                let rc = libssh2_sftp_shutdown(sftp)
                if rc == LIBSSH2_ERROR_EAGAIN { return waiting() }
                sftp = nil
                owner.channelReleased()
                completion.deliver(failure.map { .failure($0) } ?? .success(received))
                return .finished
            }
        }
    }

    /// Records the first failure with the SFTP status the server gave; cleanup goes on from the current state.
    private func fail(_ owner: SessionOwner, _ message: String) {
        let status = sftp.map { libssh2_sftp_last_error($0) } ?? 0
        let error = owner.failure(.transferFailed, operation: operationName, message: message + Self.explain(status))
        if failure == nil { failure = error }
        completion.deliver(.failure(error))
        if state == .opening {
            state = .shuttingDown
        } else if state == .transferring || state == .settingMode {
            state = .closingFile
        }
    }

    private static func explain(_ status: UInt) -> String {
        switch status {
        case LIBSSH2_FX_NO_SUCH_FILE: ": no such file or directory"
        case LIBSSH2_FX_PERMISSION_DENIED: ": permission denied"
        case LIBSSH2_FX_FILE_ALREADY_EXISTS: ": the file already exists"
        case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM, LIBSSH2_FX_QUOTA_EXCEEDED: ": no space left"
        case LIBSSH2_FX_FAILURE: ": the server reported a failure"
        case 0: ""
        default: ": SFTP status \(status)"
        }
    }
}
