import Foundation
import Synchronization

/// The mutating handle on one host, given only to ``Resource/apply(_:on:)``.
///
/// Every command runs under `/bin/sh`, as root when the play uses become. A command that fails throws
/// ``CommandFailure`` with its output, so a resource cannot ignore a failure by accident.
public struct HostExecutor: Sendable {
    public let context: HostContext
    let transport: any Transport
    let become: Become?
    let log: @Sendable (String, ExecResult) -> Void
    let findings: Findings
    /// Hears the output of the commands as it arrives.
    let observe: OutputObserver?

    init(
        context: HostContext, transport: any Transport, become: Become?, findings: Findings = Findings(),
        observe: OutputObserver? = nil, log: @escaping @Sendable (String, ExecResult) -> Void
    ) {
        self.context = context
        self.transport = transport
        self.become = become
        self.findings = findings
        self.observe = observe
        self.log = log
    }

    /// Adds `finding` (what applying measured: how long clients waited, say) to the step's report, after its
    /// changes.
    public func tell(_ finding: String) { findings.lines.withLock { $0.append(finding) } }

    /// What a step's apply told (``tell(_:)``), in order.
    final class Findings: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Runs `command` and throws ``CommandFailure`` unless it exits 0.
    /// - Parameter input: bytes for its standard input; secrets go here, never in `command`.
    @discardableResult
    public func run(_ command: String, input: [UInt8] = [], timeout: Duration = .seconds(600)) async throws
        -> ExecResult
    {
        try await run(command, input: input, timeout: timeout, reporting: { ($0, ()) }).0
    }

    /// Runs `command` to its end as a ``DetachedJob``, following its output; reports and fails as ``run(_:input:timeout:)``
    /// does, naming `command` itself. The session waits a minute past the job's own bound before it gives up on it.
    func runDetached(_ command: String, timeout: Duration) async throws {
        let seconds = Int(timeout.components.seconds)
        let result = try await transport.run(
            DetachedJob.script(command, seconds: seconds).text, input: [], become: become,
            timeout: .seconds(seconds + 60), observe: observe)
        log(command, result)
        guard result.succeeded else { throw CommandFailure(command: command, result: result) }
    }

    /// Runs `command`, whose output `split` divides into what its report shows and what only the caller reads;
    /// throws ``CommandFailure`` unless the reported part succeeded.
    func run<Rest>(
        _ command: String, input: [UInt8], timeout: Duration = .seconds(600),
        reporting split: (ExecResult) -> (ExecResult, Rest)
    ) async throws -> (ExecResult, Rest) {
        let (reported, rest) = split(
            try await transport.run(command, input: input, become: become, timeout: timeout, observe: observe))
        log(command, reported)
        guard reported.succeeded else { throw CommandFailure(command: command, result: reported) }
        return (reported, rest)
    }

    /// Takes the actions of `changes` in order, stopping at the first that fails.
    public func perform(_ changes: [Change]) async throws {
        for action in changes.flatMap(\.actions) { try await action.perform(on: self) }
    }
}

/// A command run by a resource exited non-zero.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public var command: String
    public var result: ExecResult

    public var description: String {
        let status = result.signal.map { "was killed by SIG\($0)" } ?? "exited \(result.exitStatus)"
        let detail = (result.stderrText.isEmpty ? result.stdoutText : result.stderrText).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return "`\(command)` \(status)" + (detail.isEmpty ? "" : ": \(detail.suffix(2000))")
    }
}
