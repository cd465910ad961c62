import Keel

/// One endpoint Prometheus scrapes: an exporter on one host, with the labels its series carry.
public struct MonitoringTarget: Sendable, Equatable {
    /// What serves the metrics, where, and how a scraper proves who it is.
    public enum Exporter: String, Sendable, CaseIterable {
        case node, postgres, patroni, pgbouncer, haproxy

        /// The port it listens on (HAProxy's: its stats page's, `haproxy_listen_port.stats`).
        func port(_ model: ClusterModel) -> Int {
            switch self {
            case .node: ClusterPorts.nodeExporter
            case .postgres: ClusterPorts.postgresExporter
            case .patroni: ClusterPorts.patroniAPI
            case .pgbouncer: ClusterPorts.pgbouncerExporter
            case .haproxy: model.haproxy?.ports.stats ?? 0
            }
        }

        /// Whether it serves TLS with the cluster's certificates (when the cluster has them): all but PgBouncer's,
        /// which speaks plain HTTP only and is reached on the member's address alone.
        var servesTLS: Bool { self != .pgbouncer }

        /// Whether it asks for the scrape account's password: Patroni serves its metrics to anyone its TLS lets
        /// in, PgBouncer's exporter checks nothing.
        var checksPassword: Bool { self != .patroni && self != .pgbouncer }
    }

    public var exporter: Exporter
    public var host: String
    /// `address:port`.
    public var endpoint: String
    /// The part the host plays for this exporter: `database`, `balancer` or `etcd`.
    public var role: String
}

extension ClusterModel {
    /// Every exporter the cluster runs, host by host in inventory order; none when monitoring is off.
    public var monitoringTargets: [MonitoringTarget] {
        guard monitoring != nil else { return [] }
        var targets: [MonitoringTarget] = []
        func add(_ exporter: MonitoringTarget.Exporter, on host: String, as role: String) {
            targets.append(
                MonitoringTarget(
                    exporter: exporter, host: host, endpoint: "\(address(of: host)):\(exporter.port(self))",
                    role: role))
        }
        for host in allHosts {
            let role =
                databaseHosts.contains(host) ? "database" : balancerHosts.contains(host) ? "balancer" : "etcd"
            add(.node, on: host, as: role)
            if databaseHosts.contains(host) {
                add(.postgres, on: host, as: "database")
                add(.patroni, on: host, as: "database")
                if pgbouncer != nil { add(.pgbouncer, on: host, as: "database") }
            }
            if haproxy != nil, balancerHosts.contains(host) {
                add(.haproxy, on: host, as: "balancer")
                if balancerPoolers.contains(host) { add(.pgbouncer, on: host, as: "balancer") }
            }
        }
        return targets
    }
}
