/// Runs commands on one host; files travel on a command's standard input. KeelSSH's `SSHConnection` is the real
/// one; tests use a fake.
///
/// A non-zero exit is a result, not an error.
public protocol Transport: Sendable {
    func run(_ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int) async throws
        -> ExecResult
    /// Ends the connection; later calls fail.
    func close() async
}

extension Transport {
    public func run(_ command: String, input: [UInt8] = [], become: Become? = nil, timeout: Duration? = nil)
        async throws -> ExecResult
    {
        try await run(command, input: input, become: become, timeout: timeout, outputLimit: 64 << 20)
    }

    public func run(_ command: ShellCommand, input: [UInt8] = [], become: Become? = nil, timeout: Duration? = nil)
        async throws -> ExecResult
    {
        try await run(command.text, input: input, become: become, timeout: timeout)
    }
}
