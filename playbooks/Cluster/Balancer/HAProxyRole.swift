import Keel

/// HAProxy on a balancer: ports for the primary, all replicas, sync and async replicas, and stats; each member's
/// health read from its Patroni REST API, over TLS with the member's certificate verified when the cluster has a CA.
struct HAProxyRole: Role {
    let model: ClusterModel

    /// The cluster's CA, for HAProxy's health checks.
    static let authorityFile = "/etc/haproxy/cluster-ca.crt"
    /// HAProxy's admin socket, and where each server's state waits across a reload.
    static let adminSocket = "/run/haproxy/admin.sock"
    static let stateFile = "/var/lib/haproxy/server-state"

    /// A reload that keeps what the health checks know: a new process otherwise takes every server for up until
    /// its first check, and sends writes to replicas for that second. The state is saved through the admin socket
    /// just before; `haproxy -c` (Debian's reload) refuses a broken configuration, and the old process keeps
    /// serving its connections.
    static let reload = Handler.run(
        name: "reload haproxy, keeping each server's state",
        command: "if systemctl is-active -q haproxy; then "
            + "{ echo 'show servers state' | socat stdio UNIX-CONNECT:\(adminSocket) > \(stateFile).new "
            + "&& mv \(stateFile).new \(stateFile); } || rm -f \(stateFile).new; systemctl reload haproxy; fi")

    var steps: [Step] {
        Package("haproxy", "socat")
        if let tls = model.tls {
            File(Self.authorityFile, content: tls.authority).onChange(Self.reload)
        }
        Template("cluster/haproxy/haproxy.cfg", to: "/etc/haproxy/haproxy.cfg", values: values).onChange(Self.reload)
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
            "cluster": .string(model.name), "stats_port": .int(ports.stats), "admin_socket": .string(Self.adminSocket),
            "state_file": .string(Self.stateFile),
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
