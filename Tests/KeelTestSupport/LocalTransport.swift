import Foundation
import Keel

/// Runs commands with the local `/bin/sh`, on the local disk: a real host for engine tests
/// that need no network. Resources in such tests point at paths inside a temporary directory. An observer hears the
/// whole output once the command has ended.
public struct LocalTransport: Transport {
    public init() {}

    public func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputPath = scratch.appendingPathComponent("in").path
        let outputPath = scratch.appendingPathComponent("out").path
        let errorPath = scratch.appendingPathComponent("err").path
        try Data(input).write(to: URL(fileURLWithPath: inputPath))
        let wrapped = "exec 2>\(shellQuote(errorPath)); \(command)"
        let pid = try Shell.spawn("/bin/sh", ["-c", wrapped], stdin: inputPath, output: outputPath)
        let status = await Task.detached { Shell.wait(pid) }.value
        let result = ExecResult(
            stdout: [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()),
            stderr: [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data()),
            exitStatus: status)
        observe?(result.stdout + result.stderr)
        return result
    }

    public func close() async {}
}
