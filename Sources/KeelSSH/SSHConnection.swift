import Foundation
import KeelCore

/// An authenticated SSH connection to one host, safe to use from many tasks at once.
///
/// All work on the connection runs on a thread of its own (see the transport's `SessionOwner`), so awaiting a
/// command never blocks Swift's cooperative pool, and many commands share the connection concurrently, up to
/// ``SSHConfiguration/maxChannels`` channels at a time; the rest queue.
///
/// ```swift
/// let connection = try await SSHConnection.connect(configuration)
/// let result = try await connection.run("uname -r", timeout: .seconds(10))
/// print(result.stdoutText)
/// await connection.close()
/// ```
public final class SSHConnection: Sendable {
    private let owner: SessionOwner

    private init(owner: SessionOwner) { self.owner = owner }

    deinit { owner.requestClose() }

    /// Connects, verifies the host key and authenticates.
    /// - Throws: ``SSHError`` saying which step failed and what to do about it.
    public static func connect(_ configuration: SSHConfiguration) async throws -> SSHConnection {
        let owner = SessionOwner(configuration: configuration)
        try await owner.start()
        return SSHConnection(owner: owner)
    }

    /// The host as known_hosts and messages spell it.
    public var host: String { owner.host }

    /// Whether the known_hosts file still holds the host key this connection verified (its jump hosts' too): a
    /// session kept between runs is used again only then.
    func hostKeysStillKnown() -> Bool { owner.hostKeysStillKnown() }

    /// Runs `command` through the login user's shell and collects its output.
    ///
    /// - Parameters:
    ///   - command: the command line, run by the remote user's shell.
    ///   - input: bytes for the command's standard input (then end-of-file). Secrets go here, never in `command`.
    ///   - become: run as another user through `sudo -n`.
    ///   - timeout: cut the command short after this long; nil waits indefinitely.
    ///   - outputLimit: the most stdout plus stderr bytes to accept.
    /// - Returns: the output and exit status. A non-zero exit is a normal result, not an error.
    /// - Throws: ``SSHError`` (`timedOut`, `outputLimitExceeded`, `channelFailed`, `disconnected`), or
    ///   `CancellationError` when the task is cancelled.
    public func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult {
        // Without a terminal nothing tells a command that its channel closed: a mark in the environment of every
        // process it starts lets a command cut short be ended, with all it started.
        let mark = "KEEL_EXEC=" + randomToken()
        let marked = "export \(mark); \(command)"
        do {
            return try await exec(
                become?.wrap(marked) ?? marked, input: input, timeout: timeout, outputLimit: outputLimit,
                observe: observe)
        } catch let error where error is CancellationError || (error as? SSHError)?.code == .timedOut {
            await end(mark, become: become)
            throw error
        }
    }

    private func exec(
        _ line: String, input: [UInt8], timeout: Duration?, outputLimit: Int, observe: OutputObserver?
    ) async throws -> ExecResult {
        try await submit { control, continuation in
            ExecOperation(
                command: line, input: input, timeout: timeout, outputLimit: outputLimit, observe: observe,
                control: control, completion: continuation)
        }
    }

    /// Ends every process whose environment holds `mark` (TERM, then KILL two seconds later), even when the task
    /// that asks is cancelled.
    private func end(_ mark: String, become: Become?) async {
        let find =
            "for f in /proc/[0-9]*/environ; do grep -qsxz \(mark) \"$f\" && { p=${f#/proc/}; echo ${p%/environ}; }; done"
        let command =
            "p=$(\(find)); [ -z \"$p\" ] || { kill -TERM $p 2>/dev/null; sleep 2; kill -KILL $(\(find)) 2>/dev/null; }; true"
        let line = become?.wrap(command) ?? command
        await Task.detached {
            _ = try? await self.exec(line, input: [], timeout: .seconds(15), outputLimit: 1 << 16, observe: nil)
        }.value
    }

    /// Writes `bytes` to `path` atomically: into a temporary file created `0600`, given its mode and owner, then
    /// renamed over `path`. Readers see the old file or the new one, never a part.
    ///
    /// With `become`, the bytes land in a private temporary file of the login user first and are moved into place
    /// by the other user.
    public func upload(
        _ bytes: [UInt8], to path: String, mode: UInt32 = 0o644, owner: String? = nil, group: String? = nil,
        become: Become? = nil, timeout: Duration? = nil
    ) async throws {
        let name = "keel-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let staging = become == nil ? siblingPath(of: path, named: name) : "/tmp/.\(name)"
        do {
            _ = try await submit { control, continuation in
                FileTransferOperation(
                    path: staging, direction: .upload(bytes: bytes, mode: mode), timeout: timeout, control: control,
                    completion: continuation)
            }
        } catch {
            _ = try? await run("rm -f \(shellQuote(staging))", timeout: .seconds(30))
            throw error
        }
        // Whatever stops the move (a failed chown, a timeout, a lost connection), no copy stays behind: the staged
        // file and, with `become`, its copy beside `path` go too.
        let copy = siblingPath(of: path, named: name)
        let cleanup = "rm -f \(shellQuote(staging)) \(shellQuote(copy))"
        let finish = placeCommand(
            staging: staging, copy: copy, path: path, mode: mode, owner: owner, group: group, viaCopy: become != nil)
        let result: ExecResult
        do {
            result = try await run(finish, become: become, timeout: .seconds(60))
        } catch {
            _ = try? await run(cleanup, become: become, timeout: .seconds(30))
            throw error
        }
        guard result.succeeded else {
            _ = try? await run(cleanup, become: become, timeout: .seconds(30))
            throw SSHError(
                .transferFailed, host: host, operation: "upload",
                message: "cannot move the uploaded file into \(path): \(result.stderrText.trimmed)")
        }
    }

    /// Reads the whole file at `path`, refusing files larger than `limit` bytes.
    public func download(_ path: String, limit: Int = 64 << 20, timeout: Duration? = nil) async throws -> [UInt8] {
        try await submit { control, continuation in
            FileTransferOperation(
                path: path, direction: .download(limit: limit), timeout: timeout, control: control,
                completion: continuation)
        }
    }

    /// Asks the server to connect to `host:port` and returns a local socket joined to that connection (what a
    /// jump host does for a session behind it). The tunnel lives until that socket is closed, or this connection.
    func forward(to host: String, port: Int, timeout: Duration) async throws -> Int32 {
        try await submit { control, continuation in
            ForwardOperation(host: host, port: port, timeout: timeout, control: control, completion: continuation)
        }
    }

    /// Ends every operation still running and disconnects.
    public func close() async { await owner.close() }

    private func submit<Value: Sendable>(
        _ make: @Sendable (OperationControl, CheckedContinuation<Value, any Error>) -> any SessionOperation
    ) async throws -> Value {
        let control = OperationControl()
        let owner = self.owner
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let operation = make(control, continuation)
                if !owner.enqueue(operation) { operation.abort(owner.stoppedError) }
            }
        } onCancel: {
            control.cancel()
            owner.wake()
        }
    }

    private func siblingPath(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(name)" }
        return String(path[...slash]) + ".\(name)"
    }

    /// Sets owner and mode on the staged file, then renames it into place (copying it first to `copy`, beside
    /// `path`, when it is staged elsewhere, so the final rename stays within one file system).
    private func placeCommand(
        staging: String, copy: String, path: String, mode: UInt32, owner: String?, group: String?, viaCopy: Bool
    ) -> String {
        var steps: [String] = []
        var file = staging
        if viaCopy {
            file = copy
            steps.append("cp \(shellQuote(staging)) \(shellQuote(file))")
            steps.append("chmod \(String(mode, radix: 8)) \(shellQuote(file))")
        }
        if owner != nil || group != nil {
            steps.append("chown \(shellQuote((owner ?? "") + (group.map { ":" + $0 } ?? ""))) \(shellQuote(file))")
        }
        steps.append("mv -f \(shellQuote(file)) \(shellQuote(path))")
        var command = steps.joined(separator: " && ")
        if viaCopy { command = "{ \(command); } ; status=$?; rm -f \(shellQuote(staging)); exit $status" }
        return command
    }
}

/// 128 random bits in hex: a name nobody else can guess.
func randomToken() -> String {
    (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

extension SSHConnection: Transport {}
