/// Where a service on a cluster host reads the cluster's CA, its own certificate (``TLSService``) and key: a
/// root-owned directory the service's group may read, the key the service account's own (0600).
struct TLSFiles: Sendable {
    let directory: String
    /// The account that reads the key; its group reads the directory.
    let account: String
    /// The certificate's and key's name: `server`, or `client` for a client's alone.
    var stem = "server"

    var authority: String { directory + "/ca.crt" }
    var certificate: String { directory + "/\(stem).crt" }
    var key: String { directory + "/\(stem).key" }

    /// The database's: PostgreSQL's, a member's PgBouncer's and Patroni's (its REST API, and its client
    /// certificate for etcd); root's `curl` and `etcdctl` on a database host use them too.
    static let patroni = TLSFiles(directory: "/etc/patroni/tls", account: "postgres")
    /// The REST API's, on a database host: the CA its clients must be signed by (``ClusterTLS/Authority/apiClients``)
    /// and the member's own client certificate, which Patroni, patronictl and root's `curl` present.
    static let patroniAPIClient = TLSFiles(directory: "/etc/patroni/tls/api", account: "postgres", stem: "client")
    /// A balancer's PgBouncer's (a database host's PgBouncer reads Patroni's).
    static let pgbouncer = TLSFiles(directory: "/etc/pgbouncer/tls", account: "postgres")
    /// etcd's, for clients and peers alike.
    static let etcd = TLSFiles(directory: "/etc/etcd/tls", account: "etcd")
}
