import Foundation
import Keel

/// HAProxy on a balancer: ports for the primary, all replicas, sync and async replicas, and stats; each member's
/// health read from its Patroni REST API, over TLS with the member's certificate verified when the cluster has a CA.
struct HAProxyRole: Role {
    let model: ClusterModel
    let haproxy: HAProxySettings
    /// The balancer it configures: its `balancer_tags` narrow the replicas it routes to.
    let host: String
    /// Whether it ends waiting until HAProxy routes to the leader: not before Patroni is deployed (see
    /// ``BalancerPlays/haproxyBeforePatroni(_:)``).
    var awaitsLeader = true

    /// The cluster's CA, for HAProxy's health checks.
    static let authorityFile = "/etc/haproxy/cluster-ca.crt"
    /// HAProxy's admin socket, and where each server's state waits across a reload.
    static let adminSocket = "/run/haproxy/admin.sock"
    static let stateFile = "/var/lib/haproxy/server-state"

    /// Reloads HAProxy keeping each server's checked state, new servers down (see the script's template).
    static let reloadScript = "/usr/local/lib/keel/haproxy-reload"
    static let reload = Handler.run(name: "reload haproxy, keeping each server's state", command: "\(reloadScript)")

    static let configuration = "/etc/haproxy/haproxy.cfg"
    /// HAProxy's certificate and key in one file, as its stats page and metrics listener serve TLS with them.
    static let certificate = "/etc/haproxy/keel.pem"
    /// Where an earlier Keel kept them, for the metrics listener alone.
    static let formerCertificate = "/etc/haproxy/keel-metrics.pem"
    /// The health checks' client certificate and key in one file, which the members' REST APIs ask for.
    static let checksCertificate = "/etc/haproxy/patroni-checks.pem"
    /// What Keel leaves on a balancer for HAProxy, which removing the cluster deletes.
    static let footprint = [
        configuration, authorityFile, reloadScript, stateFile, certificate, formerCertificate, checksCertificate,
    ]

    /// The listener the balancer's own PgBouncer reaches the leader through (``ClusterPorts/pooledLeader``).
    static let pooledLeader = "pooled_leader"

    /// The account of HAProxy's stats page; its password is ``HAProxySettings/statsPassword``.
    static let statsUser = "keel"

    /// HAProxy, and socat to carry its servers' state across a reload.
    static let packages = ["haproxy", "socat"]

    var steps: [Step] {
        Package(Self.packages)
        Directory("/usr/local/lib/keel")
        Template("cluster/haproxy/reload", to: Self.reloadScript, mode: 0o755, values: values)
        if let tls = model.tls {
            File(Self.authorityFile, content: tls.authority).onChange(Self.reload)
        }
        let issued = model.tls?.issued(.haproxy, on: host)
        for (path, pair) in [
            (Self.certificate, issued), (Self.checksCertificate, model.tls?.issued(.healthChecks, on: host)),
        ] {
            if let pair {
                // One PEM block a line: the certificate's text need not end with a newline.
                let pem = [pair.certificate, pair.key.reveal()].map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }
                File(path, contents: .secret(Secret(pem.joined())), mode: 0o600).onChange(Self.reload)
            } else {
                File.absent(path).onChange(Self.reload)
            }
        }
        File.absent(Self.formerCertificate)
        Template(
            "cluster/haproxy/haproxy.cfg", to: Self.configuration, mode: 0o600,
            values: values.merging([
                "stats_user": .string(Self.statsUser),
                "stats_password": .string(haproxy.statsPassword.reveal()),
                "metrics": .bool(model.monitoring != nil), "metrics_port": .int(ClusterPorts.haproxyMetrics),
                "tls": .string(issued == nil ? "" : " ssl crt \(Self.certificate)"),
                "metrics_addresses": .list(
                    ([model.address(of: host)]
                        + (model.vip.map { $0.placement == .balancers ? [$0.address] : [] } ?? []))
                        .map { .string($0) }),
                "scrape_digest": .string(model.monitoring.map(Self.scrapeDigest) ?? ""),
            ]) { $1 }, isSecret: true
        ).onChange(Self.reload)
        Service("haproxy", state: .started, enabled: true)
        FlushHandlers()
        WaitFor.port(haproxy.ports.stats, host: "127.0.0.1", timeout: .seconds(30))
        if awaitsLeader {
            // Routing to the leader again: a reload starts the servers it has not seen checked as down.
            Self.routes(to: "master")
        }
    }

    /// The SHA-256 of the Authorization header Prometheus sends with the scrape account (`Basic` and base64 of
    /// `user:password`), as the metrics listener compares it.
    static func scrapeDigest(_ monitoring: MonitoringSettings) -> String {
        let credentials = Data("\(monitoring.scrapeUser):\(monitoring.scrapePassword.reveal())".utf8)
            .base64EncodedString()
        return sha256Hex(Data("Basic \(credentials)".utf8))
    }

    /// Waits until the `listener` (`master`, `replicas`) has a server up, as HAProxy's checks found it.
    static func routes(to listener: String) -> WaitFor {
        WaitFor(
            .command(
                serverStates(listener) + " | awk '$6 == 2 { up = 1 } END { exit !up }'",
                what: "HAProxy's \(listener) to have a server up"),
            timeout: .seconds(60))
    }

    /// Each server's state as HAProxy's checks know it, saved for the process a reload starts (Keel's reload
    /// script does it on its own; Debian's reload after an upgrade does not).
    static let serverStateSaved: ShellCommand =
        "{ \(serverStates("")) > \(stateFile + ".new") && mv \(stateFile + ".new") \(stateFile); }"

    /// Succeeds when HAProxy's master process runs the binary installed now, not one an upgrade replaced.
    static let runsInstalledBinary: ShellCommand =
        "! readlink /proc/\(raw: "$(cat /run/haproxy.pid)")/exe | grep -q ' (deleted)$'"

    /// `command` sent to HAProxy's admin socket, its answer on stdout.
    static func adminCommand(_ command: String) -> ShellCommand {
        "echo \(command) | socat stdio \("UNIX-CONNECT:" + adminSocket)"
    }

    /// The servers of `listener` (every listener's for ""), one line each: its name in field 4, its state in
    /// field 6 (2: up).
    static func serverStates(_ listener: String) -> ShellCommand {
        adminCommand(listener.isEmpty ? "show servers state" : "show servers state " + listener)
    }

    private var values: [String: TemplateValue] {
        let ports = haproxy.ports
        // Patroni answers a replica check with 503 unless the member has each tag asked for.
        let tags = (model.hostFlags[host]?.balancerTags ?? []).map { "tag_\($0.key)=\($0.value)" }
        let query = tags.isEmpty ? "" : "?" + tags.joined(separator: "&")
        // Clients reach the members' PgBouncers; the balancer's own PgBouncer reaches the leader's PostgreSQL.
        let clientPort = model.pgbouncer?.port ?? model.postgresPort
        var listeners: [(name: String, bind: String, backend: Int, check: String)] = [
            ("master", "*:\(ports.primary)", clientPort, "/primary"),
            ("replicas", "*:\(ports.replicas)", clientPort, "/replica" + query),
            ("replicas_sync", "*:\(ports.sync)", clientPort, "/sync" + query),
            ("replicas_async", "*:\(ports.async)", clientPort, "/async" + query),
        ]
        if model.balancerPoolers.contains(host) {
            listeners.append(
                (Self.pooledLeader, "127.0.0.1:\(ClusterPorts.pooledLeader)", model.postgresPort, "/primary"))
        }
        return [
            "cluster": .string(model.name), "stats_port": .int(ports.stats), "admin_socket": .string(Self.adminSocket),
            "state_file": .string(Self.stateFile), "api_port": .int(ClusterPorts.patroniAPI),
            "listeners": .list(
                listeners.map {
                    .map([
                        "name": .string($0.name), "bind": .string($0.bind), "backend_port": .int($0.backend),
                        "check": .string($0.check), "writes": .bool($0.check == "/primary"),
                    ])
                }),
            "members": .list(
                model.databaseHosts.map { member in
                    .map([
                        "name": .string(member), "address": .string(model.address(of: member)),
                        // The member's certificate names it by its inventory name; the checks present their own.
                        "tls": .string(
                            model.tls == nil
                                ? ""
                                : " check-ssl verify required ca-file \(Self.authorityFile) verifyhost \(member) "
                                    + "crt \(Self.checksCertificate)"),
                    ])
                }),
        ]
    }
}
