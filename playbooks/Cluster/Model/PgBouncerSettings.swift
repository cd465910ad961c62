import Keel

/// PgBouncer on every member, as postgresql_cluster's `pgbouncer_*` variables set it.
public struct PgBouncerSettings: Sendable {
    public var port = 6432
    public var pools: [ClusterModel.Pool] = []
    public var defaultPoolSize = 20
    public var maxClientConnections = 10000
    /// When a server connection goes back to its pool: `session`, `transaction` or `statement`.
    public var poolMode = "session"
    /// The most server connections opened to one database, 0 for no limit.
    public var maxDatabaseConnections = 0
    /// How long a client waits for a server connection before PgBouncer gives up, seconds, 0 for ever.
    public var queryWaitTimeout = 120
    /// `client_tls_sslmode`: `prefer` with the cluster's certificates, else `disable`.
    public var clientTLS = "disable"

    /// Whether clients may speak TLS to it.
    public var servesTLS: Bool { clientTLS != "disable" }

    /// The settings in the inventory, checked whether or not PgBouncer is installed; nil when it is not
    /// (`pgbouncer_install: false`). `withTLS`: whether the cluster has certificates.
    static func read(_ reader: VariableReader, withTLS: Bool) throws(InventoryError) -> PgBouncerSettings? {
        var settings = PgBouncerSettings()
        settings.port = try reader.int(.pgbouncerListenPort, in: 1...65535) ?? settings.port
        settings.pools = try ClusterModel.pools(reader)
        settings.defaultPoolSize = try reader.int(.pgbouncerDefaultPoolSize, in: 1...10000) ?? settings.defaultPoolSize
        settings.maxClientConnections =
            try reader.int(.pgbouncerMaxClientConnections, in: 1...100000) ?? settings.maxClientConnections
        settings.poolMode = try reader.string(.pgbouncerPoolMode) ?? settings.poolMode
        if !["session", "transaction", "statement"].contains(settings.poolMode) {
            throw InventoryError(
                "pgbouncer_default_pool_mode '\(settings.poolMode)' is not a pool mode",
                at: reader.origin(.pgbouncerPoolMode), hint: "use session, transaction or statement")
        }
        settings.maxDatabaseConnections =
            try reader.int(.pgbouncerMaxDatabaseConnections, in: 0...100_000) ?? settings.maxDatabaseConnections
        settings.queryWaitTimeout =
            try reader.int(.pgbouncerQueryWaitTimeout, in: 0...86_400) ?? settings.queryWaitTimeout
        settings.clientTLS = try reader.string(.pgbouncerClientTLSMode) ?? (withTLS ? "prefer" : "disable")
        let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
        if !modes.contains(settings.clientTLS) || (!withTLS && settings.servesTLS) {
            throw InventoryError(
                "pgbouncer_client_tls_sslmode '\(settings.clientTLS)' cannot be used here",
                at: reader.origin(.pgbouncerClientTLSMode),
                hint: withTLS
                    ? "use one of \(modes.joined(separator: ", "))"
                    : "PgBouncer serves TLS only with tls_cert_generate: true")
        }
        return try reader.bool(.pgbouncerInstall) ?? true ? settings : nil
    }
}
