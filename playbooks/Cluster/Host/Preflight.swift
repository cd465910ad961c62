import Foundation
import Keel

/// Checks a host can take its part of the cluster before anything is changed anywhere: supported OS, enough
/// memory and disk, a hostname no other host has, a clock in step with the controller's, the cluster's ports free
/// (or held by the cluster's own services), and each component's own checks (``PreflightCheck``). It never changes
/// the host: it passes or it fails with every problem it found.
struct Preflight: Resource {
    let model: ClusterModel
    let host: String
    /// Ports this host will listen on, with the services that may hold each.
    let ports: [Int: Set<String>]
    /// The components' checks.
    static let checks: [any PreflightCheck] = [
        PatroniPreflight(), PostgreSQLPreflight(), EtcdPreflight(), BalancerPreflight(), PgBackRestPreflight(),
        LostSecretsPreflight(),
    ]

    init(model: ClusterModel, host: String) {
        self.model = model
        self.host = host
        var ports: [Int: Set<String>] = [:]
        if model.etcdHosts.contains(host) {
            ports[ClusterPorts.etcdClient] = ["etcd"]; ports[ClusterPorts.etcdPeer] = ["etcd"]
        }
        if model.databaseHosts.contains(host) {
            // A standalone PostgreSQL on the [master] host is taken over, keeping its data.
            ports[model.postgresPort] = host == model.primaryHost ? ["patroni", "postgresql"] : ["patroni"]
            ports[ClusterPorts.patroniAPI] = ["patroni"]
            if let pgbouncer = model.pgbouncer { ports[pgbouncer.port] = ["pgbouncer"] }
        }
        if let haproxy = model.haproxy?.ports, model.balancerHosts.contains(host) {
            for port in [haproxy.primary, haproxy.replicas, haproxy.sync, haproxy.async, haproxy.stats] {
                ports[port] = ["haproxy"]
            }
            if model.balancerPoolers.contains(host), let pgbouncer = model.pgbouncer {
                ports[ClusterPorts.pooledLeader] = ["haproxy"]
                ports[pgbouncer.port] = ["pgbouncer"]
            }
        }
        self.ports = ports
    }

    var description: String { "pre-flight checks" }

    var probe: String {
        let services = Set(ports.values.joined()).sorted().joined(separator: " ")
        let script = """
            . /etc/os-release 2>/dev/null; echo "os=$ID $VERSION_ID"
            echo "memory_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)"
            echo "disk_mb=$(df -Pm /var/lib | awk 'NR == 2 {print $4}')"
            echo "listening=$(ss -Hltn 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}' | sort -un | tr '\\n' ' ')"
            for s in \(services); do case "$(systemctl is-active "$s")" in active|activating|reloading) echo "active=$s";; esac; done
            """
        let components = Self.checks.map { $0.probe(model, host: host).text }.filter { !$0.isEmpty }
        // Read last, so that the time the checks above take (the VRRP listener's 3 s) is not counted as skew; with
        // the controller's clock as the probe was made, so that a slow round trip (a loaded controller) is not
        // counted either: the host's clock must fall between the two readings of the controller's.
        return ([script] + components).joined(separator: "\n")
            + "\necho \"clock=$(date +%s)\"\necho sent=\(Int(Date().timeIntervalSince1970))"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        var problems: [String] = []
        let found = PreflightFindings(output.text)
        let active = Set(found.values("active"))

        if found.value("os") != "debian 12" {
            problems.append("the OS is \(found.value("os") ?? "unknown"); Keel supports Debian 12")
        }
        if let memory = found.value("memory_mb").flatMap(Int.init), memory < 512 {
            problems.append("only \(memory) MB of memory; PostgreSQL and Patroni need at least 512 MB")
        }
        if let disk = found.value("disk_mb").flatMap(Int.init), disk < 2048 {
            problems.append("only \(disk) MB free under /var/lib; at least 2 GB is needed")
        }
        if let clock = found.value("clock").flatMap(Double.init) {
            let sent = found.value("sent").flatMap(Double.init) ?? Date().timeIntervalSince1970
            let skew = max(sent - clock, clock - Date().timeIntervalSince1970, 0)
            if skew > 5 {
                problems.append(
                    String(
                        format: "the clock is %.0f s off the controller's; sync it (chrony or systemd-timesyncd)", skew)
                )
            }
        }
        let namesakes = context.peers.filter { $0.key != host && $0.value.hostname == context.facts.hostname }.keys
            .sorted()
        if !namesakes.isEmpty {
            problems.append(
                "its hostname \(context.facts.hostname) is also the hostname of \(namesakes.joined(separator: ", ")); give every host its own"
            )
        }
        let listening = Set((found.value("listening") ?? "").split(separator: " ").compactMap { Int($0) })
        for (port, services) in ports.sorted(by: { $0.key < $1.key })
        where listening.contains(port) && active.isDisjoint(with: services) {
            problems.append(
                "port \(port) is taken by something other than \(services.sorted().joined(separator: " or ")); free it or change the port"
            )
        }
        for check in Self.checks {
            problems += check.problems(found, model: model, host: host, on: context)
        }
        guard problems.isEmpty else {
            throw ResourceError(
                "pre-flight failed on \(host), nothing was changed:\n        - "
                    + problems.joined(separator: "\n        - "))
        }
        return []
    }
}
