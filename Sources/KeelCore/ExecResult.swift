/// What a remote command produced. A non-zero exit status is a normal result, not an error.
public struct ExecResult: Sendable, Equatable {
    public var stdout: [UInt8]
    public var stderr: [UInt8]
    /// The exit status; `0` also when the command was killed by a signal, so check ``signal`` too.
    public var exitStatus: Int32
    /// The name of the signal that killed the command (`"TERM"`, `"KILL"` …), if one did.
    public var signal: String?

    public init(stdout: [UInt8] = [], stderr: [UInt8] = [], exitStatus: Int32 = 0, signal: String? = nil) {
        self.stdout = stdout
        self.stderr = stderr
        self.exitStatus = exitStatus
        self.signal = signal
    }

    /// True when the command exited with status 0 and no signal.
    public var succeeded: Bool { exitStatus == 0 && signal == nil }

    /// Standard output decoded as UTF-8 (invalid sequences replaced).
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error decoded as UTF-8 (invalid sequences replaced).
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
