import Foundation
import Testing

@testable import Keel

/// ``PathController``'s probe run by the shell, as root, on directories laid out here.
@Suite("The account that controls a path")
struct PathControllerTests {
    /// The account the probe names for `path`.
    private func controller(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", PathController.probe(path)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.trimmingCharacters(in: .newlines).replacingOccurrences(of: "account=", with: "")
    }

    @Test(
        "root's folder is root's; a folder whose group (not root's) may write is that group's account, even root's own with the sticky bit; one anyone may write is nobody's, and what lies below too unless it is sticky",
        .enabled(if: getuid() == 0, "needs root: it makes folders of other accounts")
    )
    func writePermission() throws {
        // Under a root-only folder of its own: the temporary folder's parent (/tmp) is anyone's.
        let base = "/var/lib/keel-tests-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        func folder(_ name: String, _ mode: Int, group: String = "root") throws -> String {
            let path = base + "/" + name
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try FileManager.default.setAttributes(
                [.posixPermissions: mode, .groupOwnerAccountName: group], ofItemAtPath: path)
            return path
        }
        try FileManager.default.createDirectory(
            atPath: base, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let plain = try folder("plain", 0o755)
        let shared = try folder("log", 0o1775, group: "daemon")
        let readable = try folder("readable", 0o755, group: "daemon")
        let anyones = try folder("tmp", 0o1777)
        let below = try folder("tmp/roots", 0o755)
        let open = try folder("open", 0o777)
        let belowOpen = try folder("open/roots", 0o755)

        #expect(try controller(plain + "/file") == "root")
        #expect(try controller(readable + "/file") == "root")
        #expect(try controller(shared + "/keel.log") == "daemon")
        #expect(try controller(anyones + "/file") == "nobody")
        // Root's folder in a sticky one stays root's: no one else can rename it away. Not so without the bit.
        #expect(try controller(below + "/file") == "root")
        #expect(try controller(open + "/file") == "nobody")
        #expect(try controller(belowOpen + "/file") == "nobody")
        // A folder not made yet counts for nothing; the system's folders are root's.
        #expect(try controller(plain + "/missing/file") == "root")
        #expect(try controller("/etc/default/keel") == "root")
    }
}
