import Crypto
import Foundation
import Keel

/// The pure-Python Patroni wheel, fetched once on the controller and pushed to the hosts, which then need no
/// access to PyPI (the same way an air-gapped site installs: put the wheel in the cache directory by hand). Root
/// runs code from it on every database host, so its SHA-256 must be the one the model holds for its release
/// (``PatroniSettings/wheelDigest``).
public enum PatroniWheel {
    /// `$KEEL_WHEELS`, else `~/.cache/keel/wheels`.
    public static var cacheDirectory: String {
        ProcessInfo.processInfo.environment["KEEL_WHEELS"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache/keel/wheels")
    }

    /// The bytes of the wheel of `version` whose SHA-256 is `digest`, downloaded with `pip download` when
    /// `directory` does not hold it.
    public static func load(version: String, digest: String, from directory: String = cacheDirectory) throws
        -> [UInt8]
    {
        let path = (directory as NSString).appendingPathComponent("patroni-\(version)-py3-none-any.whl")
        if !FileManager.default.fileExists(atPath: path) {
            try download(version: version, into: directory)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError("cannot read the Patroni \(version) wheel at \(path)")
        }
        let actual = Crypto.SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        guard actual == digest.lowercased() else {
            throw ResourceError(
                "the Patroni \(version) wheel at \(path) has SHA-256 \(actual), not the pinned \(digest); it is damaged "
                    + "or not PyPI's: delete it and run again (Keel downloads it anew)")
        }
        return [UInt8](data)
    }

    private static func download(version: String, into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pip = Process()
        pip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        pip.arguments = [
            "python3", "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", directory,
            "patroni==\(version)",
        ]
        try pip.run()
        pip.waitUntilExit()
        guard pip.terminationStatus == 0 else {
            throw ResourceError(
                "cannot fetch the Patroni \(version) wheel with pip; download patroni-\(version)-py3-none-any.whl "
                    + "into \(directory) (or point KEEL_WHEELS at a folder holding it)")
        }
    }
}
