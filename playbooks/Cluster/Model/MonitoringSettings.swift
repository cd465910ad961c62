import Keel

/// Prometheus exporters on the cluster's hosts, off unless `keel_monitoring: true`: the node exporter on every
/// host, the PostgreSQL exporter on every member, the PgBouncer exporter where PgBouncer runs, HAProxy's own
/// endpoint on the balancers; Patroni serves `/metrics` on its REST API already.
public struct MonitoringSettings: Sendable {
    /// The account Prometheus gives (HTTP basic auth) to the exporters that check one.
    public var scrapeUser = "prometheus"
    public var scrapePassword: Secret
    /// `scrapePassword`'s bcrypt hash, as the exporters and HAProxy check it (the same on every run).
    public var scrapeHash: Secret
    /// The role the PostgreSQL exporter logs in as (`pg_monitor`, nothing more), and the PgBouncer exporter
    /// (one of PgBouncer's `stats_users`).
    public var role = "keel_monitoring"
    public var rolePassword: Secret

    /// The settings, or nil when monitoring is off; passwords from the secrets file (generated on first use).
    static func read(_ reader: VariableReader, secrets: ClusterSecrets) throws(InventoryError) -> MonitoringSettings? {
        guard try reader.bool(.keelMonitoring) ?? false else { return nil }
        let scrapePassword = secrets.password(for: ClusterSecrets.monitoringScrapePassword)
        return MonitoringSettings(
            scrapePassword: scrapePassword,
            scrapeHash: Secret(
                Bcrypt.hash(scrapePassword, saltSecret: secrets.password(for: ClusterSecrets.monitoringScrapeSalt))),
            rolePassword: secrets.password(for: ClusterSecrets.monitoringRolePassword))
    }
}
