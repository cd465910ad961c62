import Foundation
import Testing

/// The project's lab of real Linux hosts (`Tests/lab/lab`), as integration tests use it.
///
/// `make test` brings the lab up and sets `KEEL_LAB_INVENTORY`; without it (plain `swift test`, no root) lab
/// tests are skipped with ``skipReason``.
public enum Lab {
    public static let skipReason: Comment = "needs the lab: run `make test` as root (it sets KEEL_LAB_INVENTORY)"

    /// The inventory `lab inventory` wrote, when the lab is up.
    public static var inventory: String? {
        ProcessInfo.processInfo.environment["KEEL_LAB_INVENTORY"].flatMap {
            FileManager.default.fileExists(atPath: $0) ? $0 : nil
        }
    }

    public static var isAvailable: Bool { inventory != nil && getuid() == 0 }

    /// Runs the lab script with `arguments` (`kill h3`, `start h3`, …) and returns its output.
    @discardableResult
    public static func run(_ arguments: String...) async throws -> String {
        let (status, output) = try await timed("lab \(arguments.joined(separator: " "))") {
            try await Shell.captureAsync(script, arguments)
        }
        guard status == 0 else {
            throw Shell.ShellError(description: "lab \(arguments.joined(separator: " ")) exited \(status): \(output)")
        }
        return output
    }

    /// Runs `body` while this machine cannot reach `host`'s SSH port (other lab hosts still can), and lets it
    /// through again however `body` ends.
    public static func blocking<T>(_ host: String, _ body: () async throws -> T) async throws -> T {
        try await run("block", host)
        let result: T
        do {
            result = try await body()
        } catch {
            try await run("unblock", host)
            throw error
        }
        try await run("unblock", host)
        return result
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lab/lab").path
    }
}
