import Keel
import KeelSSH

/// HAProxy on a balancer: ports for the primary, all replicas, sync and async replicas, and stats; each member's
/// health read from its Patroni REST API.
struct HAProxyRole: Role {
    let model: ClusterModel

    var steps: [Step] {
        Package("haproxy")
        Template("cluster/haproxy.cfg", to: "/etc/haproxy/haproxy.cfg", values: values)
            .onChange(.reload("haproxy"))
        Service("haproxy", state: .started, enabled: true)
        FlushHandlers()
        WaitFor.port(model.haproxyPorts.stats, host: "127.0.0.1", timeout: .seconds(30))
    }

    private var values: [String: TemplateValue] {
        let ports = model.haproxyPorts
        let listeners: [(String, Int, String)] = [
            ("master", ports.primary, "/primary"), ("replicas", ports.replicas, "/replica"),
            ("replicas_sync", ports.sync, "/sync"), ("replicas_async", ports.async, "/async"),
        ]
        return [
            "cluster": .string(model.name), "stats_port": .int(ports.stats),
            "backend_port": .int(model.pgbouncer ? model.pgbouncerPort : model.postgresPort),
            "listeners": .list(listeners.map { .map(["name": .string($0.0), "port": .int($0.1), "check": .string($0.2)]) }),
            "members": .list(model.databaseHosts.map { .map(["name": .string($0), "address": .string(model.address(of: $0))]) }),
        ]
    }
}

/// keepalived on a balancer: VRRP for the cluster VIP, held where HAProxy runs. Planning fails when the VIP is not
/// in the network of the balancer's interface.
struct KeepalivedRole {
    let host: HostContext
    let model: ClusterModel
    let vip: String

    @StepBuilder func steps() throws -> [Step] {
        let interface = try model.vipInterface ?? interfaceHolding(model.address(of: host.name))
        Package("keepalived")
        Template("cluster/keepalived.conf", to: "/etc/keepalived/keepalived.conf", mode: 0o600, values: [
            "cluster": .string(model.name), "member": .string(host.name), "interface": .string(interface),
            "instance": .string("keel_\(model.name.filter { $0.isLetter || $0.isNumber })"),
            "router_id": .int(Int(vip.split(separator: ".").last ?? "1") ?? 1), "vip": .string(vip),
            "auth_pass": .string(String(model.vrrpPassword.reveal().prefix(8))),
        ], isSecret: true).onChange(.restart("keepalived"))
        Service("keepalived", state: .started, enabled: true)
        FlushHandlers()
        // One of the balancers claims the VIP a few VRRP adverts after keepalived starts.
        WaitFor(.command("ping -c1 -W1 \(vip)"), timeout: .seconds(60))
    }

    /// The interface whose network holds `address`; the VIP must be in the same network.
    private func interfaceHolding(_ address: String) throws -> String {
        for (name, networks) in host.facts.interfaces.sorted(by: { $0.key < $1.key }) {
            for network in networks where network.hasPrefix(address + "/") {
                guard IPv4.contains(network, vip) else {
                    throw ResourceError("cluster_vip \(vip) is outside \(network), the network of \(name) on \(host.name); choose a free address in it")
                }
                return name
            }
        }
        throw ResourceError("no interface on \(host.name) holds \(address); set vip_interface")
    }
}

/// PgBouncer on a database host, in front of its local PostgreSQL.
struct PgBouncerRole: Role {
    let host: HostContext
    let model: ClusterModel

    var steps: [Step] {
        Package("pgbouncer")
        Template("cluster/pgbouncer-userlist.txt", to: "/etc/pgbouncer/userlist.txt", mode: 0o600, owner: "postgres", group: "postgres", values: [
            "users": .list(([(model.superuser, model.superuserPassword)] + model.users.compactMap { user in user.password.map { (user.name, $0) } })
                .map { .map(["name": .string($0.0), "password": .string($0.1.reveal())]) }),
        ], isSecret: true).onChange(.reload("pgbouncer"))
        Template("cluster/pgbouncer.ini", to: "/etc/pgbouncer/pgbouncer.ini", mode: 0o640, owner: "postgres", group: "postgres", values: [
            "cluster": .string(model.name), "member": .string(host.name),
            // Without HAProxy the VIP lands on the leader, so PgBouncer listens on every address there.
            "listen": .string(model.vip != nil && !model.withHAProxy ? "*" : "\(model.address(of: host.name)),127.0.0.1"),
            "port": .int(model.pgbouncerPort), "postgres_port": .int(model.postgresPort), "superuser": .string(model.superuser),
            "max_client_conn": .int(model.pgbouncerMaxClientConnections), "default_pool_size": .int(model.pgbouncerDefaultPoolSize),
            "pools": .list(model.pgbouncerPools.map { .map(["name": .string($0.name), "database": .string($0.database), "options": .string($0.options)]) }),
        ]).onChange(.restart("pgbouncer"))
        Service("pgbouncer", state: .started, enabled: true)
        FlushHandlers()
        WaitFor.port(model.pgbouncerPort, host: "127.0.0.1", timeout: .seconds(30))
    }
}
