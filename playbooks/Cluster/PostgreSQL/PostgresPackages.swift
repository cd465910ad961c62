/// The cluster's PostgreSQL packages, of the major release the inventory pins (`postgresql_version`).
enum PostgresPackages {
    /// The server, which brings its client and libpq.
    static func server(_ model: ClusterModel) -> String { "postgresql-\(model.postgresVersion)" }
    /// The server's client.
    static func client(_ model: ClusterModel) -> String { "postgresql-client-\(model.postgresVersion)" }
    /// libpq, which the server and its client use.
    static let library = "libpq5"
}
