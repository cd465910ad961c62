import Keel

/// Patroni's release and how its members hold and hand over the leader's role, as postgresql_cluster's
/// `patroni_*` and `synchronous_*` variables set them.
public struct PatroniSettings: Sendable {
    /// The SHA-256 of each release's wheel as PyPI publishes it: root runs code from the wheel on every database
    /// host.
    static let pinnedWheelDigests = ["4.1.5": "7aad8c1539e6c51c269a8005169dd54ddc7668437b7900fa6099d7894e224c84"]
    /// The oldest release Keel installs: before 3.0.3, an old leader returning from a partition could overwrite the
    /// new leader's key and abandon the interim leader's acknowledged writes; 4.0.6 carries the later etcd3 fixes
    /// too.
    static let oldestInstalled = ReleaseNumber(4, 0, 6)

    /// The release installed from the pushed wheel (`patroni_version`).
    public var version = "4.1.5"
    /// The SHA-256 its wheel must have: pinned by Keel for the releases it knows, else `patroni_wheel_sha256`.
    public var wheelDigest = ""
    /// Whether Keel may replace a Patroni older than 3.0.3 that already runs with etcd v3 (`keel_upgrade_patroni`).
    public var upgrade = false
    public var ttl = 30
    public var loopWait = 10
    public var retryTimeout = 10
    /// How far behind the leader, in bytes, a replica may be and still be promoted; status calls a member further
    /// behind lagging (`patroni_maximum_lag_on_failover`).
    public var maximumLagOnFailover = 1_048_576
    /// How long Patroni keeps the replication slot of a member that is gone, holding WAL for its return (Patroni's
    /// `member_slots_ttl`, at Patroni's default).
    public var memberSlotsTTL = "30min"
    /// Whether the leader keeps its role while etcd cannot be reached, as long as every other member answers it
    /// (Patroni's failsafe mode, `patroni_failsafe_mode`).
    public var failsafeMode = false
    public var synchronousMode = true
    public var synchronousModeStrict = false
    public var synchronousNodeCount = 1

    /// The settings in the inventory, each within the range Patroni accepts; the wheel's digest is read once the
    /// release is known to be one Keel installs (``wheelDigest(_:version:)``).
    static func read(_ reader: VariableReader) throws(InventoryError) -> PatroniSettings {
        var settings = PatroniSettings()
        settings.version = try reader.string(.patroniVersion, .version) ?? settings.version
        settings.upgrade = try reader.bool(.upgradePatroni) ?? settings.upgrade
        settings.ttl = try reader.int(.patroniTTL, in: 10...3600) ?? settings.ttl
        settings.loopWait = try reader.int(.patroniLoopWait, in: 1...600) ?? settings.loopWait
        settings.retryTimeout = try reader.int(.patroniRetryTimeout, in: 1...600) ?? settings.retryTimeout
        settings.maximumLagOnFailover =
            try reader.int(.patroniMaximumLag, in: 0...(1 << 50)) ?? settings.maximumLagOnFailover
        settings.failsafeMode = try reader.bool(.patroniFailsafeMode) ?? settings.failsafeMode
        settings.synchronousMode = try reader.bool(.synchronousMode) ?? settings.synchronousMode
        settings.synchronousModeStrict = try reader.bool(.synchronousModeStrict) ?? settings.synchronousModeStrict
        settings.synchronousNodeCount =
            try reader.int(.synchronousNodeCount, in: 1...16) ?? settings.synchronousNodeCount
        return settings
    }

    /// `patroni_wheel_sha256`, else the digest Keel pins for `version`.
    static func wheelDigest(_ reader: VariableReader, version: String) throws(InventoryError) -> String {
        if let digest = try reader.string(.patroniWheelDigest) {
            guard digest.count == 64, digest.allSatisfy(\.isHexDigit) else {
                throw InventoryError(
                    "patroni_wheel_sha256 '\(digest)' is not a SHA-256 (64 hex digits)",
                    at: reader.origin(.patroniWheelDigest))
            }
            return digest.lowercased()
        }
        guard let pinned = pinnedWheelDigests[version] else {
            throw InventoryError(
                "Keel pins no SHA-256 for the Patroni \(version) wheel, and root would run code from it on every "
                    + "database host", at: reader.origin(.patroniVersion),
                hint: "give patroni_wheel_sha256 (the digest PyPI lists for patroni-\(version)-py3-none-any.whl), "
                    + "or remove patroni_version for Keel's release")
        }
        return pinned
    }
}
