import Foundation
import KeelTestSupport

/// The built `keel` executable, run as a user would run it.
enum KeelBinary {
    static var path: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        if directory.lastPathComponent == "MacOS" {
            directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        return directory.appendingPathComponent("keel").path
    }

    /// Runs keel with `arguments`.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> KeelRun {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        merged["SSH_AUTH_SOCK"] = nil
        let (status, output) = try await Shell.captureAsync(path, arguments, environment: merged)
        return KeelRun(status: status, output: output)
    }
}
