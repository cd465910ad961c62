import Keel

/// Prometheus exporters on the cluster's hosts, off unless `keel_monitoring: true`: the node exporter on every
/// host, the PostgreSQL exporter on every member, the PgBouncer exporter where PgBouncer runs, HAProxy's own
/// endpoint on the balancers; Patroni serves `/metrics` on its REST API already.
public struct MonitoringSettings: Sendable {
    /// The account Prometheus gives (HTTP basic auth) to the exporters that check one.
    public var scrapeUser = "prometheus"
    public var scrapePassword: Secret
    /// The PostgreSQL role the PostgreSQL exporter logs in as over the local socket: `pg_monitor`, nothing more.
    public var postgresRole = "keel_monitoring"
    public var postgresPassword: Secret

    /// The settings, or nil when monitoring is off; passwords from the secrets file (generated on first use).
    static func read(_ reader: VariableReader, secrets: ClusterSecrets) throws(InventoryError) -> MonitoringSettings? {
        guard try reader.bool(.keelMonitoring) ?? false else { return nil }
        return MonitoringSettings(
            scrapePassword: secrets.password(for: ClusterSecrets.monitoringScrapePassword),
            postgresPassword: secrets.password(for: ClusterSecrets.monitoringPostgresPassword))
    }
}
