import Foundation
import Keel

/// The pure-Python Patroni wheel, fetched once on the controller with pip and carried to the hosts
/// (``CarriedSoftware``), which then need no access to PyPI. Its SHA-256 must be the one the model holds for its
/// release (``PatroniSettings/wheelDigest``).
public enum PatroniWheel {
    /// The bytes of the wheel of `version` whose SHA-256 is `digest`, downloaded with `pip download` when
    /// `directory` does not hold it.
    public static func load(version: String, digest: String, from directory: String = CarriedSoftware.cacheDirectory)
        throws
        -> [UInt8]
    {
        let path = (directory as NSString).appendingPathComponent("patroni-\(version)-py3-none-any.whl")
        if !FileManager.default.fileExists(atPath: path) {
            try download(version: version, into: directory)
        }
        return try CarriedSoftware.verified(path, digest: digest, what: "the Patroni \(version) wheel")
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
