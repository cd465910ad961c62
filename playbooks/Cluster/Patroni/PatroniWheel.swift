import Foundation
import Keel

/// The pure-Python Patroni wheel, fetched once on the controller and pushed to the hosts, which then need no
/// access to PyPI (the same way an air-gapped site installs: put the wheel in the cache directory by hand).
public enum PatroniWheel {
    /// `$KEEL_WHEELS`, else `~/.cache/keel/wheels`.
    public static var cacheDirectory: String {
        ProcessInfo.processInfo.environment["KEEL_WHEELS"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache/keel/wheels")
    }

    /// The wheel's bytes, downloaded with `pip download` when the cache does not hold it.
    public static func load(version: String) throws -> [UInt8] {
        let path = (cacheDirectory as NSString).appendingPathComponent("patroni-\(version)-py3-none-any.whl")
        if let data = FileManager.default.contents(atPath: path) { return [UInt8](data) }
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let pip = Process()
        pip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        pip.arguments = [
            "python3", "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", cacheDirectory,
            "patroni==\(version)",
        ]
        try pip.run()
        pip.waitUntilExit()
        guard pip.terminationStatus == 0, let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError(
                "cannot fetch the Patroni \(version) wheel with pip; download patroni-\(version)-py3-none-any.whl "
                    + "into \(cacheDirectory) (or point KEEL_WHEELS at a folder holding it)")
        }
        return [UInt8](data)
    }
}
