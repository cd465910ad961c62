import Keel

/// HAProxy on a balancer: ports for the primary, all replicas, sync and async replicas, and stats; each member's
/// health read from its Patroni REST API, over TLS with the member's certificate verified when the cluster has a CA.
struct HAProxyRole: Role {
    let model: ClusterModel

    /// The cluster's CA, for HAProxy's health checks.
    static let authorityFile = "/etc/haproxy/cluster-ca.crt"

    var steps: [Step] {
        Package("haproxy")
        if let tls = model.tls {
            File(Self.authorityFile, content: tls.authority).onChange(.reload("haproxy"))
        }
        Template("cluster/haproxy/haproxy.cfg", to: "/etc/haproxy/haproxy.cfg", values: values)
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
            "listeners": .list(
                listeners.map { .map(["name": .string($0.0), "port": .int($0.1), "check": .string($0.2)]) }),
            "members": .list(
                model.databaseHosts.map { member in
                    .map([
                        "name": .string(member), "address": .string(model.address(of: member)),
                        // The member's certificate names it by its inventory name.
                        "tls": .string(
                            model.tls == nil
                                ? "" : " check-ssl verify required ca-file \(Self.authorityFile) verifyhost \(member)"),
                    ])
                }),
        ]
    }
}
