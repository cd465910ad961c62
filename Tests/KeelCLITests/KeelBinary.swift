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
        let (status, output) = try await timed(label(arguments)) {
            try await Shell.captureAsync(path, arguments, environment: merged)
        }
        return KeelRun(status: status, output: output)
    }

    /// Runs keel with `arguments` under a pseudo-terminal (`script`), as a person at a terminal sees it: the output
    /// is what reached the screen, escape sequences included.
    static func runOnTerminal(_ arguments: [String]) async throws -> KeelRun {
        let line = ([path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        environment["SSH_AUTH_SOCK"] = nil
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm"
        let (status, output) = try await timed(label(arguments) + " (at a terminal)") {
            try await Shell.captureAsync("/usr/bin/script", ["-qfec", line, "/dev/null"], environment: environment)
        }
        return KeelRun(status: status, output: output.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// A run's arguments without the files they name (inventories and events files are temporary paths), and
    /// without a password a command of `keel exec` sets (`PGPASSWORD=…`).
    private static func label(_ arguments: [String]) -> String {
        let namingFiles: Set = ["-i", "--events", "--inventory"]
        var words = ["keel"]
        var skipNext = false
        for argument in arguments {
            defer { skipNext = namingFiles.contains(argument) }
            guard !skipNext, !argument.hasPrefix("/"), !namingFiles.contains(argument) else { continue }
            let shown = argument.replacing(/PASSWORD='?[^' ]*'?/, with: "PASSWORD=***")
            words.append(shown.count > 60 ? shown.prefix(57) + "…" : shown)
        }
        return words.joined(separator: " ")
    }
}
