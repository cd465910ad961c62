import Keel

/// The roles the cluster itself runs on, each with its password (from the inventory, else the secrets file).
public struct ClusterLogins: Sendable {
    /// One role and its password.
    public struct Login: Sendable {
        public var name: String
        public var password: Secret
    }

    /// PostgreSQL's superuser, which Patroni, PgBouncer's auth queries and Keel's own SQL use.
    public var superuser: Login
    /// The role replicas stream as.
    public var replication: Login
    /// Basic authentication for the unsafe (POST, PATCH, …) endpoints of Patroni's REST API.
    public var restAPI: Login
}
