import Keel

/// One endpoint Prometheus scrapes: an exporter on one host, with the labels its series carry.
public struct MonitoringTarget: Sendable, Equatable {
    /// What serves the metrics, where, and how a scraper proves who it is.
    public enum Exporter: String, Sendable, CaseIterable {
        /// `vip`: HAProxy's metrics at the VIP, from whichever balancer holds it; down when no balancer does.
        case node, postgres, pgbouncer, patroni, haproxy, vip

        /// The port it listens on.
        var port: Int {
            switch self {
            case .node: ClusterPorts.nodeExporter
            case .postgres: ClusterPorts.postgresExporter
            case .pgbouncer: ClusterPorts.pgbouncerExporter
            case .patroni: ClusterPorts.patroniAPI
            case .haproxy, .vip: ClusterPorts.haproxyMetrics
            }
        }

        /// Whether it asks for the scrape account's password: Patroni asks for a client certificate of the API
        /// clients' CA instead (the scraper's, ``TLSService/scraper``).
        var checksPassword: Bool { self != .patroni }
    }

    public var exporter: Exporter
    public var host: String
    /// `address:port`.
    public var endpoint: String
    /// The part the host plays for this exporter: `database`, `balancer`, `etcd`, or `vip` for the VIP's.
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
                    exporter: exporter, host: host, endpoint: "\(address(of: host)):\(exporter.port)",
                    role: role))
        }
        for host in allHosts {
            let role =
                databaseHosts.contains(host) ? "database" : balancerHosts.contains(host) ? "balancer" : "etcd"
            add(.node, on: host, as: role)
            if databaseHosts.contains(host) {
                add(.postgres, on: host, as: "database")
                add(.patroni, on: host, as: "database")
            }
            if pgbouncer != nil, poolerHosts.contains(host) {
                add(.pgbouncer, on: host, as: role)
            }
            if haproxy != nil, balancerHosts.contains(host) {
                add(.haproxy, on: host, as: "balancer")
            }
        }
        if haproxy != nil, let vip, vip.placement == .balancers {
            targets.append(
                MonitoringTarget(
                    exporter: .vip, host: vip.address, endpoint: "\(vip.address):\(ClusterPorts.haproxyMetrics)",
                    role: "vip"))
        }
        return targets
    }
}
