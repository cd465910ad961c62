import X509

/// A service that holds a certificate and key of its own on a host, so that the account reading one key cannot
/// act as another service: only a service that is a client may prove itself to another (clientAuth), and only the
/// database's certificate names the loopback address a balancer's PgBouncer verifies the leader by.
public enum TLSService: String, CaseIterable, Hashable, Sendable {
    /// PostgreSQL, Patroni's REST API and a member's PgBouncer (the `postgres` account); Patroni is also the
    /// client of etcd and of the other members' REST APIs.
    case database
    /// etcd, serving its clients and peers, and a client of its peers.
    case etcd
    /// A balancer's PgBouncer.
    case pooler
    /// HAProxy's metrics listener on a balancer.
    case haproxy
    /// The node, PostgreSQL and PgBouncer exporters (the `prometheus` account).
    case exporters

    /// What the certificate may prove: serving, and being a client for the two services that are one.
    var usages: [ExtendedKeyUsage.Usage] {
        switch self {
        case .database, .etcd: [.serverAuth, .clientAuth]
        case .pooler, .haproxy, .exporters: [.serverAuth]
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
}
