import Foundation
import Keel

/// Checks a host can take its part of the cluster before anything is changed anywhere: supported OS, enough
/// memory and disk, a hostname no other host has, a clock in step with the controller's, the cluster's ports free
/// (or held by the cluster's own services), a VIP that no one else answers for, no unsafe Patroni already running,
/// no running cluster whose passwords the secrets file lost, an etcd that already speaks what the model asks (TLS
/// or not), and a shared backup repository already mounted. It never changes the host: it passes or it fails with
/// every problem it found.
struct Preflight: Resource {
    let model: ClusterModel
    let host: String
    /// Ports this host will listen on, with the services that may hold each.
    let ports: [Int: Set<String>]

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
        }
        self.ports = ports
    }

    var description: String { "pre-flight checks" }

    /// Before this release, a Patroni with etcd v3 could lose acknowledged writes after a partition: an old leader
    /// returning from it could overwrite the new leader's key.
    static let firstPatroniSafeWithEtcd3 = ReleaseNumber(3, 0, 3)

    var probe: String {
        let services = Set(ports.values.joined()).sorted().joined(separator: " ")
        var script = """
            . /etc/os-release 2>/dev/null; echo "os=$ID $VERSION_ID"
            echo "memory_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)"
            echo "disk_mb=$(df -Pm /var/lib | awk 'NR == 2 {print $4}')"
            echo "listening=$(ss -Hltn 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}' | sort -un | tr '\\n' ' ')"
            for s in \(services); do case "$(systemctl is-active "$s")" in active|activating|reloading) echo "active=$s";; esac; done
            """
        if model.databaseHosts.contains(host) {
            script += """

                [ -e /etc/patroni/patroni.env ] && echo patroni_deployed=1
                [ -e \(TLSFiles.patroni.authority) ] && echo tls_deployed=1
                for p in /usr/bin/patroni /usr/local/bin/patroni /opt/patroni/bin/patroni; do [ -x "$p" ] && echo "patroni=$("$p" --version 2>/dev/null | awk '{print $2}')"; done
                grep -qs '^etcd3:' /etc/patroni/*.yml /etc/patroni.yml && echo patroni_etcd3=1
                pg_lsclusters -h 2>/dev/null | awk '{print "debian_cluster=" $1 "/" $2 " " $3 " " $4 " " $6}'
                """
            let generatedUsers = model.users.map(\.name).filter {
                model.generatedSecrets.contains(ClusterSecrets.userPassword($0))
            }
            if !generatedUsers.isEmpty {
                let names = generatedUsers.map(SQL.literal).joined(separator: ", ")
                let connection = model.postgres
                script +=
                    "\nprintf '%s\\n' \(shellQuote("SELECT 'role=' || rolname FROM pg_roles WHERE rolname IN (\(names));"))"
                    + " | \(connection.psql()) 2>/dev/null"
            }
            if let backups = model.backups, backups.repositoryHost == nil {
                script += "\n[ -d \(backups.path) ] || echo shared_repository=missing"
            }
        }
        if model.etcdHosts.contains(host) {
            script += """

                [ -e \(TLSFiles.etcd.authority) ] && echo tls_deployed=1
                [ -d /var/lib/etcd/default/member ] && sed -n 's/^ETCD_LISTEN_PEER_URLS="\\([a-z]*\\):.*/etcd_peers=\\1/p' \(EtcdRole.configuration)
                """
        }
        if model.balancerHosts.contains(host) {
            script += "\ngrep -qs auth_pass \(KeepalivedRole.configuration) && echo vrrp_configured=1"
            // Before keepalived runs here: the VRRP routers already advertising on this network, for 3 s.
            if model.vip != nil {
                script +=
                    "\n[ -e \(KeepalivedRole.configuration) ] || ! command -v python3 >/dev/null || python3 -c \(shellQuote(Self.vrrpListener))"
            }
        }
        if let backups = model.backups,
            host == backups.repositoryHost || (backups.repositoryHost == nil && model.databaseHosts.contains(host))
        {
            script += "\n[ -e \(shellQuote(backups.removedClusterMark)) ] && echo stanza_retired=1"
        }
        if let vip = model.vip {
            script += "\n\(vip.answers) >/dev/null 2>&1 && echo vip=answers"
        }
        // Read last, so that the time the checks above take (the VRRP listener's 3 s) is not counted as skew; with
        // the controller's clock as the probe was made, so that a slow round trip (a loaded controller) is not
        // counted either: the host's clock must fall between the two readings of the controller's.
        return script + "\necho \"clock=$(date +%s)\"\necho sent=\(Int(Date().timeIntervalSince1970))"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        var problems: [String] = []
        let lines = output.text.split(separator: "\n").map(String.init)
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let active = Set(lines.filter { $0.hasPrefix("active=") }.map { String($0.dropFirst(7)) })

        if value("os") != "debian 12" {
            problems.append("the OS is \(value("os") ?? "unknown"); Keel supports Debian 12")
        }
        if let memory = value("memory_mb").flatMap(Int.init), memory < 512 {
            problems.append("only \(memory) MB of memory; PostgreSQL and Patroni need at least 512 MB")
        }
        if let disk = value("disk_mb").flatMap(Int.init), disk < 2048 {
            problems.append("only \(disk) MB free under /var/lib; at least 2 GB is needed")
        }
        if let clock = value("clock").flatMap(Double.init) {
            let sent = value("sent").flatMap(Double.init) ?? Date().timeIntervalSince1970
            let skew = max(sent - clock, clock - Date().timeIntervalSince1970, 0)
            if skew > 5 {
                problems.append(
                    String(
                        format: "the clock is %.0f s off the controller's; sync it (chrony or systemd-timesyncd)", skew)
                )
            }
        }
        let unsafePatroni = lines.filter { $0.hasPrefix("patroni=") }.map { String($0.dropFirst(8)) }
            .filter { ReleaseNumber.isOlder($0, than: Self.firstPatroniSafeWithEtcd3) }
        if let version = unsafePatroni.first, lines.contains("patroni_etcd3=1"), !model.patroni.upgrade {
            problems.append(
                "Patroni \(version.isEmpty ? "(unknown release)" : version) manages PostgreSQL here with etcd v3: before "
                    + "\(Self.firstPatroniSafeWithEtcd3) it can lose acknowledged writes after a partition; "
                    + "set keel_upgrade_patroni: true to let Keel replace it with Patroni \(model.patroni.version)")
        }
        problems += lostSecrets(lines)
        problems += otherClusters(lines)
        if let peers = value("etcd_peers"), peers != model.etcdScheme {
            problems.append(
                "etcd here already serves a cluster whose members talk \(peers == "https" ? "TLS" : "plain HTTP"); "
                    + "they cannot switch in place without losing quorum: set etcd_tls_enable: "
                    + "\(peers == "https") to keep it as it is")
        }
        if lines.contains("shared_repository=missing"), let path = model.backups?.path {
            problems.append(
                "the pgBackRest repository \(path) does not exist here; mount the filesystem every database host shares "
                    + "(NFS) at \(path) first, or list a repository host under [pgbackrest]")
        }
        if lines.contains("stanza_retired=1"), let backups = model.backups {
            problems.append(
                "pgBackRest stanza \(backups.stanza) holds the backups of a removed cluster (\(backups.removedClusterMark)); "
                    + "a new cluster cannot archive into it: set pgbackrest_stanza to a new name (the old backups stay "
                    + "readable with pgbackrest --stanza=\(backups.stanza) info), or delete them with "
                    + "keel remove-cluster --delete-backups")
        }
        let namesakes = context.peers.filter { $0.key != host && $0.value.hostname == context.facts.hostname }.keys
            .sorted()
        if !namesakes.isEmpty {
            problems.append(
                "its hostname \(context.facts.hostname) is also the hostname of \(namesakes.joined(separator: ", ")); give every host its own"
            )
        }
        let listening = Set((value("listening") ?? "").split(separator: " ").compactMap { Int($0) })
        for (port, services) in ports.sorted(by: { $0.key < $1.key })
        where listening.contains(port) && active.isDisjoint(with: services) {
            problems.append(
                "port \(port) is taken by something other than \(services.sorted().joined(separator: " or ")); free it or change the port"
            )
        }
        if let vip = model.vip, vip.candidates(in: model).contains(host) {
            do { _ = try vip.binding(on: context, address: model.address(of: host)) } catch {
                problems.append("\(error)")
            }
            let heldByCluster = context.peers.values.contains { $0.network(holding: vip.address) != nil }
            if lines.contains("vip=answers") && !heldByCluster {
                problems.append(
                    "cluster_vip \(vip.address) already answers, and no host of the cluster holds it; choose a free address"
                )
            }
        }
        if let vip = model.vip {
            let balancers = Set(model.balancerHosts.map(model.address(of:)))
            let others = lines.filter { $0.hasPrefix("vrrp=\(vip.routerID) ") }.map {
                String($0.split(separator: " ")[1])
            }
            .filter { !balancers.contains($0) }
            if let other = others.first {
                problems.append(
                    "another VRRP router (\(other)) already uses virtual_router_id \(vip.routerID) on this network; "
                        + "set keepalived_virtual_router_id to an id no router here uses")
            }
        }
        guard problems.isEmpty else {
            throw ResourceError(
                "pre-flight failed on \(host), nothing was changed:\n        - "
                    + problems.joined(separator: "\n        - "))
        }
        return []
    }

    /// Prints `vrrp=ID SOURCE` for each VRRP router heard on this host's networks within 3 s (multicast adverts,
    /// and unicast ones sent here).
    static let vrrpListener = """
        import socket, struct, time
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 112)
        try:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton("224.0.0.18"), socket.inet_aton("0.0.0.0")))
        except OSError:
            pass
        s.settimeout(0.5)
        end, seen = time.time() + 3, set()
        while time.time() < end:
            try:
                data, (source, _) = s.recvfrom(2048)
            except socket.timeout:
                continue
            start = (data[0] & 15) * 4
            if len(data) > start + 1:
                seen.add((data[start + 1], source))
        for router, source in sorted(seen):
            print("vrrp=%d %s" % (router, source))
        """

    /// Debian's PostgreSQL clusters here whose data is not in the cluster's data directory: Keel stops Debian's
    /// `postgresql` service, which would stop them too, and they are not Keel's to take over.
    private func otherClusters(_ lines: [String]) -> [String] {
        let own = model.dataDirectory.hasSuffix("/") ? String(model.dataDirectory.dropLast()) : model.dataDirectory
        return lines.filter { $0.hasPrefix("debian_cluster=") }.compactMap { line in
            let fields = line.dropFirst("debian_cluster=".count).split(separator: " ", maxSplits: 3).map(String.init)
            guard fields.count == 4, fields[3] != own, fields[3] != own + "/" else { return nil }
            let (cluster, port, status, data) = (fields[0], fields[1], fields[2], fields[3])
            return
                "another PostgreSQL cluster is set up here: \(cluster) on port \(port) (\(status)), data in \(data); "
                + "Keel would stop it: drop it (pg_dropcluster \(cluster.replacingOccurrences(of: "/", with: " "))) or "
                + "move it elsewhere"
                + (host == model.primaryHost ? ", or set postgresql_data_dir: \(data) to take it over" : "")
        }
    }

    /// The secrets this run generated that the cluster already uses here: the secrets file beside the inventory
    /// lost them (a copy of the inventory without it, say), and new ones would lock members, replicas, applications
    /// or keepalived peers out.
    private func lostSecrets(_ lines: [String]) -> [String] {
        var lost: [String] = []
        if lines.contains("patroni_deployed=1") {
            lost += [ClusterVariable.superuserPassword, .replicationPassword, .restAPIPassword].map(\.rawValue)
                .filter { model.generatedSecrets.contains($0) }
        }
        lost += lines.filter { $0.hasPrefix("role=") }.map { ClusterSecrets.userPassword(String($0.dropFirst(5))) }
            .filter { model.generatedSecrets.contains($0) }
        if lines.contains("vrrp_configured=1"), model.generatedSecrets.contains(ClusterSecrets.vrrpPassword) {
            lost.append(ClusterSecrets.vrrpPassword)
        }
        // A new CA would leave every client that verifies the cluster unable to.
        if lines.contains("tls_deployed=1"), model.generatedSecrets.contains(ClusterTLS.authorityKeyName) {
            lost.append(ClusterTLS.authorityKeyName)
        }
        guard !lost.isEmpty else { return [] }
        return [
            "the cluster here already uses \(lost.sorted().joined(separator: ", ")), but .keel-secrets.yml beside the "
                + "inventory does not hold them: restore the file (or set them in the inventory); Keel will not "
                + "replace passwords a running cluster uses"
        ]
    }

}
