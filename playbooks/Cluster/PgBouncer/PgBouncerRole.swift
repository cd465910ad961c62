import Keel

/// PgBouncer on a database host, in front of its local PostgreSQL; or on a balancer, in front of the leader
/// through the balancer's HAProxy (``ClusterModel/balancerPoolers``).
struct PgBouncerRole: Role {
    let host: HostContext
    let model: ClusterModel
    let settings: PgBouncerSettings

    static let packages = ["pgbouncer"]
    /// What Keel writes for PgBouncer that the package does not own, which removing the cluster deletes.
    static let footprint = [userlist, listening, hba]
    static let userlist = "/etc/pgbouncer/userlist.txt"
    static let listening = "/etc/pgbouncer/listen.ini"
    /// Who may log in from where (the monitoring role, ``MonitoringSettings/role``, over the socket only).
    static let hba = "/etc/pgbouncer/hba.conf"
    static let reload = Handler.reload("pgbouncer")

    /// Whether this PgBouncer is a balancer's.
    private var onBalancer: Bool { model.balancerPoolers.contains(host.name) }
    /// Where it reads its certificates: a database host's are Patroni's, already there.
    private var tlsFiles: TLSFiles { onBalancer ? .pgbouncer : .patroni }

    var steps: [Step] {
        Package(Self.packages)
        if onBalancer, let tls = model.tls, let issued = tls.issued(.pooler, on: host.name) {
            TLSFilesRole(files: .pgbouncer, authority: tls.authority, issued: issued, handlers: [Self.reload]).steps
        }
        Template(
            "cluster/pgbouncer/userlist.txt", to: Self.userlist, mode: 0o600, owner: "postgres",
            group: "postgres",
            values: [
                "users": .list(
                    ([(model.logins.superuser.name, model.logins.superuser.password)]
                        + model.users.compactMap { user in user.password.map { (user.name, $0) } }
                        + (model.monitoring.map { [($0.role, $0.rolePassword)] } ?? []))
                        // Each field in double quotes, a quote inside doubled.
                        .map {
                            .map([
                                "name": .string($0.0.replacingOccurrences(of: "\"", with: "\"\"")),
                                "password": .string($0.1.reveal().replacingOccurrences(of: "\"", with: "\"\"")),
                            ])
                        })
            ], isSecret: true
        ).onChange(Self.reload)
        Template(
            "cluster/pgbouncer/listen.ini", to: Self.listening, mode: 0o640, owner: "postgres",
            group: "postgres",
            values: [
                "member": .string(host.name),
                // With the VIP on the leader, or on this balancer, PgBouncer listens on every address there.
                "listen": .string(
                    model.vip?.placement == .leader || onBalancer ? "*" : "\(model.address(of: host.name)),127.0.0.1"),
                "port": .int(settings.port),
            ]
        ).onChange(PgBouncerPlays.restart(port: settings.port).handler)
        // The rest is read again on reload: pooled connections stay.
        Template(
            "cluster/pgbouncer/hba.conf", to: Self.hba, mode: 0o640, owner: "postgres", group: "postgres",
            values: [
                "cluster": .string(model.name), "member": .string(host.name),
                "monitoring_role": .string(model.monitoring?.role ?? ""),
            ]
        ).onChange(Self.reload)
        Template(
            "cluster/pgbouncer/pgbouncer.ini", to: "/etc/pgbouncer/pgbouncer.ini", mode: 0o640, owner: "postgres",
            group: "postgres",
            values: [
                "cluster": .string(model.name), "member": .string(host.name), "hba": .string(Self.hba),
                "upstream_name": .string(onBalancer ? "the leader, through HAProxy" : "its PostgreSQL"),
                "upstream_port": .int(onBalancer ? ClusterPorts.pooledLeader : model.postgresPort),
                "server_tls": .bool(onBalancer && model.tls != nil),
                "superuser": .string(model.logins.superuser.name),
                // The PgBouncer exporter reads the console's SHOW commands as this role (``PgBouncerExporterRole``).
                "stats_user": .string(model.monitoring?.role ?? ""),
                "max_client_conn": .int(settings.maxClientConnections),
                "tls": .bool(model.tls != nil && settings.servesTLS),
                "client_tls": .string(settings.clientTLS),
                "tls_certificate": .string(tlsFiles.certificate), "tls_key": .string(tlsFiles.key),
                "tls_authority": .string(tlsFiles.authority),
                "default_pool_size": .int(settings.defaultPoolSize),
                "pool_mode": .string(settings.poolMode),
                "max_db_connections": .int(settings.maxDatabaseConnections),
                "query_wait_timeout": .int(settings.queryWaitTimeout),
                "pools": .list(
                    settings.pools.map {
                        .map([
                            "name": .string($0.name), "database": .string($0.database), "options": .string($0.options),
                        ])
                    }),
            ]
        ).onChange(Self.reload)
        Service("pgbouncer", state: .started, enabled: true)
        FlushHandlers()
        WaitFor.port(settings.port, host: "127.0.0.1", timeout: .seconds(30))
    }
}

/// The plays of the connection pooler.
enum PgBouncerPlays {
    /// PgBouncer on `hosts` (every database host and the balancers' own by default), when the inventory installs
    /// it; a change of where it listens restarts one PgBouncer at a time, so that the others keep serving.
    static func poolers(_ model: ClusterModel, on hosts: [String]? = nil) -> [Play] {
        guard let settings = model.pgbouncer else { return [] }
        let pattern = model.pattern(hosts ?? model.poolerHosts)
        return [
            Play("pgbouncer", on: pattern, tags: ["pgbouncer"]) { host in
                PgBouncerRole(host: host, model: model, settings: settings).steps
            },
            Play("pgbouncer restarts", on: pattern, serial: 1, tags: ["pgbouncer"]) { _ in
                restart(port: settings.port).due
            },
        ]
    }

    /// PgBouncer restarted, then listening again (only a restart reads listen.ini).
    static func restart(port: Int) -> RollingRestart {
        RollingRestart(
            "pgbouncer", command: "systemctl restart pgbouncer", ready: WaitFor.port(port, timeout: .seconds(30)).check)
    }
}
