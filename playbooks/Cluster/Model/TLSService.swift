import X509

/// A service that holds a certificate and key of its own on a host, so that the account reading one key cannot
/// act as another service: only a service that is a client may prove itself to another (clientAuth), and only the
/// database's certificate names the loopback address a balancer's PgBouncer verifies the leader by.
public enum TLSService: String, CaseIterable, Hashable, Sendable {
    /// PostgreSQL, Patroni's REST API and a member's PgBouncer (the `postgres` account); Patroni is also the
    /// client of etcd.
    case database
    /// etcd, serving its clients and peers, and a client of its peers.
    case etcd
    /// A balancer's PgBouncer.
    case pooler
    /// HAProxy's stats page and metrics listener on a balancer.
    case haproxy
    /// The node, PostgreSQL and PgBouncer exporters (the `prometheus` account).
    case exporters
    /// A client of the members' REST APIs on a database host: Patroni's own calls to the other members,
    /// patronictl and Keel's calls (the `postgres` account).
    case apiClient = "api_client"
    /// HAProxy's health checks of the members' REST APIs, on a balancer.
    case healthChecks = "health_checks"
    /// The operator's Prometheus reading Patroni's metrics: kept in the secrets file, on no host.
    case scraper

    /// The CA that signs it: the REST API's clients have their own, which etcd does not trust, so that no
    /// certificate that may read Patroni's API may write its DCS.
    var authority: ClusterTLS.Authority {
        switch self {
        case .database, .etcd, .pooler, .haproxy, .exporters: .cluster
        case .apiClient, .healthChecks, .scraper: .apiClients
        }
    }

    /// What the certificate may prove: serving; being a client for the database's and etcd's, which are one too,
    /// and for the REST API's clients, which are nothing else.
    var usages: [ExtendedKeyUsage.Usage] {
        switch self {
        case .database, .etcd: [.serverAuth, .clientAuth]
        case .pooler, .haproxy, .exporters: [.serverAuth]
        case .apiClient, .healthChecks, .scraper: [.clientAuth]
        }
    }

    /// Whether the certificate names `localhost` and 127.0.0.1: the database's, which local clients verify, alone.
    var namesLoopback: Bool { self == .database }

    /// The secrets file's names of its certificate and key on `host`; the database's keep the names every
    /// service's one certificate had before, so that a cluster's members keep theirs.
    func secretNames(host: String) -> (certificate: String, key: String) {
        let stem = self == .database ? "tls_\(host)" : "tls_\(host)_\(rawValue)"
        return (stem + "_certificate", stem + "_key")
    }

    /// The name the scraper's certificate is held under, in place of a host's.
    static let scraperHolder = "prometheus"
}
