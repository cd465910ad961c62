import Foundation
import Keel

/// The PgBouncer exporter Keel installs where PgBouncer runs: prometheus-community's pgbouncer_exporter 0.10.2 as
/// Debian 13 packages it, carried from this machine (``CarriedSoftware``). A static Go program that needs only libc
/// and postgresql-common (PgBouncer's own dependency), it installs on Debian 12 too, and serves TLS and checks a
/// password like the other exporters. Debian 12's own package (1.7, another program) stops at its first scrape of
/// Debian 12's PgBouncer 1.18 (`KeyError: 'total_requests'`: `SHOW STATS` lost that column in PgBouncer 1.8).
public enum PgBouncerExporterPackage {
    /// The package's name and the version the file holds (`dpkg-query`'s `${Version}`).
    static let name = "prometheus-pgbouncer-exporter"
    static let version = "1:0.10.2-2"
    static let file = "prometheus-pgbouncer-exporter_0.10.2-2_amd64.deb"
    static let digest = "e8273a94188fd70ad17e9cb8c3a87a11dacce90600223ca919e029e544a07a3a"
    /// Debian's pool; snapshot.debian.org keeps the file once Debian 13 moves on.
    static let url = "https://deb.debian.org/debian/pool/main/p/prometheus-pgbouncer-exporter/" + file

    /// The package's bytes, downloaded into `directory` when it does not hold them.
    public static func load(from directory: String = CarriedSoftware.cacheDirectory) throws -> [UInt8] {
        let path = (directory as NSString).appendingPathComponent(file)
        if !FileManager.default.fileExists(atPath: path) {
            try download(to: path)
        }
        return try CarriedSoftware.verified(path, digest: digest, what: "the PgBouncer exporter's package")
    }

    /// Downloads with Python's urllib, there for pip already (Foundation's networking would load libcurl into
    /// every keel run): into a temporary name, renamed once whole.
    private static func download(to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])",
            url, path + ".part",
        ]
        try python.run()
        python.waitUntilExit()
        guard python.terminationStatus == 0,
            (try? FileManager.default.moveItem(atPath: path + ".part", toPath: path)) != nil
        else {
            try? FileManager.default.removeItem(atPath: path + ".part")
            throw ResourceError(
                "cannot download the PgBouncer exporter's package from \(url); put \(file) into \(directory) "
                    + "(or point KEEL_WHEELS at a folder holding it)")
        }
    }
}
