import Keel
import KeelSSH

extension Playbooks {
    /// The deploy flow: etcd, then PostgreSQL and Patroni (the primary first, then the replicas), then the
    /// roles, databases and extensions, all rendered from `model`. Safe to run again: it converges.
    public static func deploy(_ model: ClusterModel, patroniWheel: [UInt8]) -> Playbook {
        Playbook("deploy", summary: "deploy the PostgreSQL HA cluster described by the inventory") {
            Play("pre-flight", on: model.pattern(model.allHosts), become: true, anyErrorsFatal: true, tags: ["always"]) { host in
                Preflight(model: model, host: host.name)
            }
            Play("common", on: model.pattern(model.allHosts), become: true, tags: ["common"]) { host in
                CommonRole(host: host, model: model)
            }
            Play("etcd", on: "etcd_cluster", become: true, tags: ["etcd"]) { host in
                EtcdRole(host: host, model: model)
            }
            // A PostgreSQL already running standalone on the [master] host becomes the leader with its data.
            Play("standalone postgresql", on: model.primaryHost ?? "master", become: true, tags: ["postgresql", "patroni"]) { _ in
                StandaloneTakeover(model: model)
            }
            // Replacing a running older Patroni goes one member at a time.
            Play("postgresql and patroni", on: "postgres_cluster", become: true, serial: model.upgradePatroni ? 1 : nil,
                 anyErrorsFatal: model.upgradePatroni, tags: ["postgresql", "patroni"]) { host in
                PatroniNodeRole(host: host, model: model, wheel: patroniWheel)
            }
            if let backups = model.backups {
                Play("pgbackrest", on: model.pattern(model.databaseHosts + [backups.repositoryHost].compactMap { $0 }), become: true, tags: ["pgbackrest"]) { host in
                    if case .host(host.name, let databaseKey, let repositoryKey) = backups.repository {
                        try PgBackRestRepositoryRole(host: host, model: model, backups: backups, databaseKey: databaseKey, repositoryKey: repositoryKey).steps()
                    } else {
                        try PgBackRestDatabaseRole(host: host, model: model, backups: backups).steps()
                    }
                }
                if backups.repositoryHost == nil {
                    Play("pgbackrest shared repository", on: model.pattern(model.databaseHosts), become: true, anyErrorsFatal: true, tags: ["pgbackrest"]) { host in
                        SharedRepositoryCheck(path: backups.path, host: host.name, members: model.databaseHosts)
                    }
                }
            }
            // The [master] host starts first so that it bootstraps the cluster; on later runs any leader will do.
            Play("patroni primary", on: model.primaryHost ?? "master", become: true, tags: ["patroni"]) { host in
                Service("patroni", state: .started, enabled: true)
                WaitFor(.command(PatroniAPI(model, member: host.name).shows("/cluster", #""role": "leader""#)), timeout: .seconds(180))
            }
            // Parameters live in etcd for the whole cluster; a change that needs a restart restarts the members
            // one at a time, the leader last. On a new cluster only the leader runs yet, so replicas are cloned
            // with the final parameters and only the leader restarts.
            Play("cluster configuration", on: model.pattern(model.databaseHosts), become: true, tags: ["patroni", "postgresql"]) { host in
                PatroniClusterConfig(model: model, host: host.name).runOnce()
                PendingRestart(model: model, host: host.name).runOnce()
            }
            Play("patroni replicas", on: model.pattern(model.replicaHosts), become: true, tags: ["patroni"]) { host in
                // A replica started before the cluster is initialized would bootstrap a new, empty cluster of its own
                // (for example when the [master] host failed earlier in this run).
                WaitFor(.command(model.etcdGet("/service/\(model.name)/initialize") + " | grep -q ."), timeout: .seconds(30))
                Service("patroni", state: .started, enabled: true)
                MemberInService(model: model, host: host.name)
            }
            // Members whose Patroni must restart for a changed unit or password file go one at a time.
            Play("patroni restarts", on: model.pattern(model.databaseHosts), become: true, serial: 1, anyErrorsFatal: true, tags: ["patroni"]) { host in
                MarkedPatroniStart.restartDue(model, host: host.name)
            }
            Play("roles, databases, extensions", on: "postgres_cluster", become: true, tags: ["postgresql"]) { _ in
                DatabaseObjectsRole(model: model)
            }
            if model.pgbouncer {
                Play("pgbouncer", on: "postgres_cluster", become: true, tags: ["pgbouncer"]) { host in
                    PgBouncerRole(host: host, model: model)
                }
            }
            Play("members in service", on: model.pattern(model.databaseHosts), become: true, tags: ["postgresql", "patroni", "pgbouncer", "pgbackrest"]) { host in
                // Patroni restarts a replica's WAL receiver as it creates slots and picks the sync standby.
                MemberInService(model: model, host: host.name)
                if model.synchronousMode && model.databaseHosts.count > 1 {
                    // Without a synchronous standby Patroni promotes no one when the leader is lost: the deploy
                    // ends only once the cluster could fail over.
                    WaitFor(.command(PatroniAPI(model, member: host.name).shows("/cluster", #""role": "sync_standby""#)), timeout: .seconds(120))
                        .runOnce()
                }
            }
            if let backups = model.backups {
                Play("pgbackrest stanza and first backup", on: backups.repositoryHost ?? model.pattern(model.databaseHosts), become: true, tags: ["pgbackrest"]) { host in
                    PgBackRestFirstBackup(backups, onlyIf: backups.repositoryHost == nil ? PatroniAPI(model, member: host.name).isPrimary : nil)
                }
            }
            if model.withHAProxy {
                Play("haproxy", on: model.pattern(model.balancerHosts), become: true, tags: ["haproxy", "load_balancing"]) { _ in
                    HAProxyRole(model: model)
                }
                if let vip = model.vip {
                    Play("keepalived", on: model.pattern(model.balancerHosts), become: true, tags: ["keepalived", "load_balancing"]) { host in
                        try KeepalivedRole(host: host, model: model, vip: vip).steps()
                    }
                }
            }
        }
    }
}

/// Waits until the member is the primary or a replica streaming WAL from it (running as a replica is not enough).
func MemberInService(model: ClusterModel, host: String) -> WaitFor {
    WaitFor(.command(PatroniAPI(model, member: host).inService), timeout: .seconds(600))
}

/// Every host: base packages and the kernel settings the cluster needs; on the hosts that get PostgreSQL or
/// pgBackRest, the PGDG repository when the inventory asks for it.
struct CommonRole: Role {
    let host: HostContext
    let model: ClusterModel

    var steps: [Step] {
        Package("ca-certificates", "curl", "iproute2", "procps", "python3")
        Sysctl("net.ipv4.ip_nonlocal_bind", "1", tolerateRefusal: true)
        Sysctl("net.ipv4.ip_forward", "0", tolerateRefusal: true)
        Sysctl("vm.swappiness", "1", tolerateRefusal: true)
        if let pgdg = model.pgdg, model.databaseHosts.contains(host.name) || host.name == model.backups?.repositoryHost {
            PGDGSource(pgdg)
        }
    }
}

/// etcd 3.4 from Debian, configured as one cluster of the `etcd_cluster` hosts.
struct EtcdRole: Role {
    let host: HostContext
    let model: ClusterModel

    var steps: [Step] {
        Package("etcd-server", "etcd-client")
        // Debian's package starts a standalone etcd at once; its data would make it refuse to join the cluster.
        // Cleared once, before the first cluster config, and only when it is that empty standalone member (alone,
        // its peer URL on localhost, no keys): an etcd that already serves a cluster keeps its data. The marker
        // keeps later runs from looking again.
        let local = "ETCDCTL_API=3 etcdctl --endpoints=http://127.0.0.1:2379 --command-timeout=5s"
        Command(
            "systemctl start etcd; if [ \"$(\(local) member list 2>/dev/null | cut -d, -f4 | tr -d ' ')\" = http://localhost:2380 ] "
                + "&& [ -z \"$(\(local) get '' --prefix --keys-only --limit=1)\" ]; "
                + "then systemctl stop etcd && rm -rf /var/lib/etcd/default; fi && touch /var/lib/etcd/.keel-cluster",
            creates: "/var/lib/etcd/.keel-cluster")
        Template("cluster/etcd.conf", to: "/etc/default/etcd", values: [
            "member": .string(host.name), "address": .string(model.address(of: host.name)),
            "initial_cluster": .string(model.etcdInitialCluster), "cluster": .string(model.name),
        ]).onChange(.restart("etcd"))
        // Members block in start-up until a quorum is up, so the first one must not wait for the others.
        Command(
            "systemctl enable etcd && systemctl start --no-block etcd",
            unless: "systemctl is-enabled -q etcd && systemctl is-active etcd | grep -qx -e active -e activating")
        WaitFor(.command("ETCDCTL_API=3 etcdctl --endpoints=http://\(model.address(of: host.name)):2379 endpoint health"), timeout: .seconds(120))
    }
}

/// PostgreSQL from Debian (its own cluster never created) and Patroni from the pushed wheel in a virtualenv that
/// uses Debian's Python libraries.
struct PatroniNodeRole: Role {
    let host: HostContext
    let model: ClusterModel
    let wheel: [UInt8]

    private var wheelPath: String { "/opt/patroni/wheels/patroni-\(model.patroniVersion)-py3-none-any.whl" }

    var steps: [Step] {
        Directory("/etc/postgresql-common")
        File("/etc/postgresql-common/createcluster.conf", content: "# Managed by Keel: Patroni creates the cluster.\ncreate_main_cluster = false\n")
        Package(
            "postgresql-\(model.postgresVersion)", "etcd-client", "python3-venv", "python3-psycopg2", "python3-etcd", "python3-urllib3",
            "python3-yaml", "python3-click", "python3-prettytable", "python3-dateutil", "python3-psutil", "python3-cdiff")
        Service("postgresql", state: .stopped, enabled: false)
        if model.upgradePatroni {
            // The distribution's older Patroni stops if it runs, then goes (its configuration files stay): Keel's
            // runs from /opt/patroni.
            OldPatroniStop()
            Package("patroni", state: .absent)
        }
        Directory("/opt/patroni/wheels")
        File(wheelPath, contents: .bytes(wheel))
        Command(
            "rm -rf /opt/patroni/venv && python3 -m venv --system-site-packages /opt/patroni/venv && "
                + "/opt/patroni/venv/bin/pip install -q --no-index --no-deps \(shellQuote(wheelPath)) && "
                + "ln -sfn /opt/patroni/venv/bin /opt/patroni/bin",
            unless: "[ \"$(/opt/patroni/bin/patroni --version 2>/dev/null)\" = 'patroni \(model.patroniVersion)' ]")
        Directory("/var/lib/postgresql/\(model.postgresVersion)", mode: 0o700, owner: "postgres", group: "postgres")
        Directory("/etc/patroni", mode: 0o750, owner: "postgres", group: "postgres")
        Template("cluster/patroni.env", to: "/etc/patroni/patroni.env", mode: 0o600, values: [
            "cluster": .string(model.name), "superuser_password": .string(model.superuserPassword.reveal()),
            "replication_password": .string(model.replicationPassword.reveal()),
            "restapi_user": .string(model.restAPIUser), "restapi_password": .string(model.restAPIPassword.reveal()),
        ], isSecret: true).onChange(MarkedPatroniStart.restartHandler)
        Template("cluster/patroni-api.curlrc", to: PatroniAPI.credentialsFile, mode: 0o600, values: [
            // Inside a quoted curl config value, backslash and quote are escaped.
            "credentials": .string("\(model.restAPIUser):\(model.restAPIPassword.reveal())"
                .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")),
        ], isSecret: true)
        Template("cluster/patroni.yml", to: "/etc/patroni/patroni.yml", mode: 0o640, owner: "postgres", group: "postgres", values: patroniValues)
            .onChange(.reload("patroni"))
        if let vip = leaderVIP {
            Package("iputils-arping")
            Template("cluster/vip-callback.sh", to: "/etc/patroni/vip-callback.sh", mode: 0o755, values: [
                "cluster": .string(model.name), "vip": .string(vip.address), "prefix": .int(vip.prefix), "interface": .string(vip.interface),
            ])
        }
        Template("cluster/patroni.service", to: "/etc/systemd/system/patroni.service", values: [
            "cluster": .string(model.name), "vip_callback": .bool(leaderVIP != nil),
        ]).onChange(MarkedPatroniStart.restartHandler)
        if model.upgradePatroni {
            // Handlers first, while the member is stopped: they must not mark the Patroni started next for a restart.
            FlushHandlers()
            MarkedPatroniStart.replacing(model, host: host.name)
        }
    }

    /// Without HAProxy the VIP follows the Patroni leader: its address, prefix and interface on this host.
    private var leaderVIP: (address: String, prefix: Int, interface: String)? {
        guard !model.withHAProxy, let vip = model.vip else { return nil }
        let address = model.address(of: host.name)
        for (name, networks) in host.facts.interfaces.sorted(by: { $0.key < $1.key }) {
            if let network = networks.first(where: { $0.hasPrefix(address + "/") }), let prefix = Int(network.split(separator: "/")[1]) {
                return (vip, prefix, model.vipInterface ?? name)
            }
        }
        return (vip, 24, model.vipInterface ?? "eth0")
    }

    private var patroniValues: [String: TemplateValue] {
        [
            "cluster": .string(model.name), "member": .string(host.name), "address": .string(model.address(of: host.name)),
            "patroni_version": .string(model.patroniVersion),
            "etcd_hosts": .string(model.etcdHosts.map { "\(model.address(of: $0)):2379" }.joined(separator: ",")),
            "ttl": .int(model.ttl), "loop_wait": .int(model.loopWait), "retry_timeout": .int(model.retryTimeout),
            "synchronous_mode": .bool(model.synchronousMode), "synchronous_mode_strict": .bool(model.synchronousModeStrict),
            "synchronous_node_count": .int(model.synchronousNodeCount),
            "port": .int(model.postgresPort), "data_dir": .string(model.dataDirectory), "version": .int(model.postgresVersion),
            // With the VIP on the leader itself, PostgreSQL must also accept connections to the VIP.
            "listen": .string(leaderVIP == nil ? "\(model.address(of: host.name)),127.0.0.1:\(model.postgresPort)" : "0.0.0.0:\(model.postgresPort)"),
            "superuser": .string(model.superuser), "replication_user": .string(model.replicationUser),
            // Single-quoted YAML: a quote is doubled.
            "parameters": .list(model.baseParameters.map {
                .map(["option": .string($0.option), "value": .string($0.value.replacingOccurrences(of: "'", with: "''"))])
            }),
            "members": .list(model.databaseHosts.map { .string(model.address(of: $0)) }),
            "vip_callback": .bool(leaderVIP != nil),
            "restore_command": .string(model.backups?.restoreCommand ?? ""),
            "hba": .list(model.hbaRules.map { .string([$0.type, $0.database, $0.user, $0.address, $0.method].filter { !$0.isEmpty }.joined(separator: " ")) }),
        ]
    }
}

/// The inventory's roles, databases and extensions, made on whichever member is the primary (a standby reports
/// them converged: they reach it through replication).
struct DatabaseObjectsRole: Role {
    let model: ClusterModel

    var steps: [Step] {
        let connection = PostgresConnection(port: model.postgresPort)
        for user in model.users {
            PostgresRole(user.name, password: user.password, superuser: user.flags.uppercased().contains("SUPERUSER"), connection: connection)
        }
        for database in model.databases {
            PostgresDatabase(database.name, owner: database.owner, connection: connection)
        }
        for extensionEntry in model.extensions {
            PostgresExtension(extensionEntry.name, database: extensionEntry.database, connection: connection)
        }
    }
}
