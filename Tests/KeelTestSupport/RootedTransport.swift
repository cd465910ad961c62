import Foundation
import Keel

/// The local machine as a host whose system directories live under `root`: every `/etc/`, `/var/lib/` and `/run/`
/// in a command (or in a script on `/bin/sh -s`'s standard input) is moved there, and programs in `binaries` come
/// first on its PATH (fakes of etcdctl, pgbackrest…). For what a flow reads before it plans, and the engine's own
/// records: tests lay out a host's files and run the real survey, or a playbook, on them.
public struct RootedTransport: Transport {
    public let root: String
    public let binaries: String

    public init(root: String) throws {
        self.root = root
        binaries = root + "/bin"
        try FileManager.default.createDirectory(atPath: binaries, withIntermediateDirectories: true)
    }

    /// Writes `text` to `path` (a host path, placed under the root), its directories made first.
    public func write(_ text: String, to path: String, mode: Int = 0o644) throws {
        let placed = root + path
        try FileManager.default.createDirectory(
            atPath: (placed as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: placed, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: placed)
    }

    /// A fake program `name` running `script` (sh).
    public func fake(_ name: String, _ script: String) throws {
        try write("#!/bin/sh\n" + script + "\n", to: "/bin/" + name, mode: 0o755)
    }

    func rooted(_ command: String) -> String {
        ["/etc/", "/var/lib/", "/run/"].reduce(command) { text, prefix in
            text.replacingOccurrences(of: prefix, with: root + prefix)
        }
    }

    public func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult {
        // The engine's probes come as a script on standard input.
        let script = command == "exec /bin/sh -s" ? Array(rooted(String(decoding: input, as: UTF8.self)).utf8) : input
        return try await LocalTransport().run(
            "PATH=\(shellQuote(binaries)):$PATH; " + rooted(command), input: script, become: become, timeout: timeout,
            outputLimit: outputLimit, observe: observe)
    }

    public func close() async {}
}
