import Foundation
import Keel

/// What a flow pushes to the hosts from this machine, so that they fetch nothing beyond their apt sources: the
/// Patroni wheel, and with monitoring the PgBouncer exporter's package. Each is kept in ``cacheDirectory`` (an
/// air-gapped site puts it there by hand) and checked against the SHA-256 Keel pins: root installs it.
public struct CarriedSoftware: Sendable {
    /// The Patroni wheel; empty unless the flow installs Patroni (``ClusterFlow/needsPatroniWheel``).
    public var patroniWheel: [UInt8] = []
    /// The PgBouncer exporter's package; empty unless the flow installs exporters where PgBouncer runs.
    public var pgbouncerExporter: [UInt8] = []

    public init(patroniWheel: [UInt8] = [], pgbouncerExporter: [UInt8] = []) {
        self.patroniWheel = patroniWheel
        self.pgbouncerExporter = pgbouncerExporter
    }

    /// `$KEEL_WHEELS`, else `~/.cache/keel/wheels`.
    public static var cacheDirectory: String {
        ProcessInfo.processInfo.environment["KEEL_WHEELS"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache/keel/wheels")
    }

    /// The bytes at `path`, which must have the SHA-256 `digest`.
    static func verified(_ path: String, digest: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ResourceError("cannot read \(what) at \(path)")
        }
        let actual = sha256Hex(data)
        guard actual == digest.lowercased() else {
            throw ResourceError(
                "\(what) at \(path) has SHA-256 \(actual), not the pinned \(digest); it is damaged or not the one "
                    + "published: delete it and run again (Keel downloads it anew)")
        }
        return [UInt8](data)
    }
}
