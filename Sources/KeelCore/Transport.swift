/// Runs commands on one host; files travel on a command's standard input. KeelSSH's `SSHConnection` is the real
/// one; tests use a fake.
///
/// A non-zero exit is a result, not an error.
public protocol Transport: Sendable {
    /// Runs `command`; `observe`, when given, hears its output (standard output and error alike) as it arrives, in
    /// chunks, before the result returns it all.
    func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult
    /// Ends the connection; later calls fail.
    func close() async
}

/// Hears a command's output as it arrives (see ``Transport/run(_:input:become:timeout:outputLimit:observe:)``).
public typealias OutputObserver = @Sendable ([UInt8]) -> Void

extension Transport {
    public func run(
        _ command: String, input: [UInt8] = [], become: Become? = nil, timeout: Duration? = nil,
        observe: OutputObserver? = nil
    ) async throws -> ExecResult {
        try await run(
            command, input: input, become: become, timeout: timeout, outputLimit: 64 << 20, observe: observe)
    }

    public func run(_ command: ShellCommand, input: [UInt8] = [], become: Become? = nil, timeout: Duration? = nil)
        async throws -> ExecResult
    {
        try await run(command.text, input: input, become: become, timeout: timeout)
    }
}
