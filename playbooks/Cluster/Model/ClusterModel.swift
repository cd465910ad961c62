import Keel

/// The whole cluster as one typed value, decoded from the inventory with postgresql_cluster's variable names.
/// Every node's configuration is rendered from it; nothing is copied from one node to another.
public struct ClusterModel: Sendable {
    public struct Parameter: Sendable, Equatable { public var option: String; public var value: JSONValue }
    public struct HBARule: Sendable, Equatable {
        public var type: String, database: String, user: String, address: String, method: String
    }
    public struct DatabaseUser: Sendable {
        public var name: String
        public var password: Secret?
        /// The attributes its `flags` name (postgresql_cluster's `"LOGIN,CREATEDB"`, `"superuser"`, …).
        public var attributes: [RoleAttribute: Bool]
    }
    public struct Database: Sendable { public var name: String; public var owner: String }
    public struct Extension: Sendable { public var name: String; public var database: String }
    public struct Pool: Sendable { public var name: String; public var database: String; public var options: String }

    public var name: String
    public var postgresVersion: Int
    /// Where Debian's packages put this version's server programs (pg_ctl, pg_controldata, pg_upgrade).
    public var binDirectory: String { "/usr/lib/postgresql/\(postgresVersion)/bin" }
    /// The postgres account's home (Debian's), which holds each version's clusters.
    public static let postgresHome = "/var/lib/postgresql"
    /// The PGDG apt repository, when PostgreSQL and its tools come from it instead of Debian.
    public var pgdg: PGDGRepository?
    public var postgresPort: Int
    /// psql on this host's local socket, as the postgres account.
    public var postgres: PostgresConnection { PostgresConnection(port: postgresPort, binaries: binDirectory) }
    public var dataDirectory: String
    public var parameters: [Parameter]
    public var hbaRules: [HBARule]
    public var users: [DatabaseUser]
    public var databases: [Database]
    public var extensions: [Extension]
    /// The roles the cluster itself runs on: superuser, replication, Patroni's REST API.
    public var logins: ClusterLogins
    /// The secrets this run generated (neither the inventory nor the secrets file had them), by their names in
    /// the secrets file: right for a new cluster, fatal for a running one that already uses them.
    public var generatedSecrets: Set<String> = []
    /// VRRP authentication between keepalived peers; generated, never in the inventory.
    public var vrrpPassword: Secret
    /// Patroni's release and how its members hold and hand over the leader's role.
    public var patroni: PatroniSettings
    /// How long the flows wait, and how far behind a replica may be, before they stop.
    public var limits = FlowLimits()
    /// HAProxy on the balancers (`with_haproxy_load_balancing`), routing by Patroni's health checks.
    public var haproxy: HAProxySettings?
    public var vip: VIP?
    /// PgBouncer on every member, unless `pgbouncer_install` is false.
    public var pgbouncer: PgBouncerSettings?
    /// pgBackRest, when installed: its repository host and schedule.
    public var backups: Backups?
    /// Prometheus exporters, when `keel_monitoring` is true.
    public var monitoring: MonitoringSettings?
    /// The cluster's CA and host certificates, unless `tls_cert_generate` is false.
    public var tls: ClusterTLS?
    /// Whether etcd serves clients and peers over TLS and asks each for a certificate of the cluster's CA
    /// (`etcd_tls_enable`, on with `tls_cert_generate`).
    public var etcdTLS = false

    /// Each host's address (its `ansible_host`, else its name), by inventory name.
    public var addresses: [String: String] = [:]

    /// Host groups, from the inventory.
    public var etcdHosts: [String]
    public var databaseHosts: [String]
    public var primaryHost: String?
    public var balancerHosts: [String]
    /// The hosts marked `new_node=true`: those `keel add-node` adds when the command line names none.
    public var newHosts: [String] = []

    /// Each host's own flags from its inventory line (its server name, Patroni tags, balancer tags), by inventory
    /// name; hosts without any are not here.
    public var hostFlags: [String: HostFlags] = [:]

    public func address(of host: String) -> String { addresses[host] ?? host }

    /// The Patroni tag `name` of `member` as its patroni.yml holds it: the member's own, else Keel's default.
    public func tag(_ name: String, of member: String) -> JSONValue? { patroniTags(of: member)[name] }

    /// How many replicas may be a synchronous standby (those not tagged nosync).
    public var synchronousCandidates: Int {
        databaseHosts.filter { $0 != primaryHost && tag("nosync", of: $0) != .bool(true) }.count
    }

    /// The tags of `member`'s patroni.yml: Patroni's standard tags off, then the member's own.
    public func patroniTags(of member: String) -> [String: JSONValue] {
        ["nofailover": .bool(false), "noloadbalance": .bool(false), "clonefrom": .bool(false), "nosync": .bool(false)]
            .merging(hostFlags[member]?.patroniTags ?? [:]) { $1 }
    }

    /// Every host of the cluster, each once, in inventory order of the groups.
    public var allHosts: [String] {
        var seen = Set<String>()
        return (etcdHosts + databaseHosts + balancerHosts + [backups?.repositoryHost].compactMap { $0 }).filter {
            seen.insert($0).inserted
        }
    }

    /// The members and the repository host (when the repository has one of its own): what a flow on the cluster's
    /// data (restore, upgrade) acts on and records its progress on.
    public var databaseAndRepositoryHosts: [String] { databaseHosts + [backups?.repositoryHost].compactMap { $0 } }

    /// The cluster once `hosts` have left it: what the remaining hosts' configuration is rendered from.
    public func without(_ hosts: [String]) -> ClusterModel {
        var model = self
        model.databaseHosts.removeAll(where: hosts.contains)
        model.etcdHosts.removeAll(where: hosts.contains)
        model.newHosts.removeAll(where: hosts.contains)
        return model
    }

    /// The database hosts other than the primary.
    public var replicaHosts: [String] { databaseHosts.filter { $0 != primaryHost } }

    /// A host pattern naming exactly `hosts` (matching none when empty).
    public func pattern(_ hosts: [String]) -> String { hosts.isEmpty ? "!all" : hosts.joined(separator: ",") }

    /// The PostgreSQL parameters Keel sets on every cluster: replication, rewind, SCRAM, and archiving when
    /// pgBackRest is installed.
    public var baseParameters: [Parameter] {
        var parameters: [(String, JSONValue)] = [
            ("wal_level", .string("replica")), ("hot_standby", .string("on")), ("wal_log_hints", .string("on")),
            ("max_wal_senders", .integer(10)), ("max_replication_slots", .integer(10)),
            ("wal_keep_size", .string("256MB")),
            ("password_encryption", .string("scram-sha-256")),
            // A short wal_sender_timeout lets an isolated primary finish shutting down instead of waiting a minute.
            ("wal_sender_timeout", .string("10s")),
        ]
        if let backups {
            parameters += [("archive_mode", .string("on")), ("archive_command", .string(backups.archiveCommand))]
        }
        return parameters.map { Parameter(option: $0.0, value: $0.1) }
    }

    /// The parameters Keel sets itself, which win over `postgresql_parameters`: pgBackRest's archiving when it is
    /// installed (as postgresql_cluster's own pgBackRest role replaces its placeholder `archive_command: cd .`), and
    /// the server's TLS files when Keel makes the certificates (each member's patroni.yml names its own; autobase
    /// 2026-03's parameters name files under its `tls_dir`, which Keel does not write).
    public var keelOwnedOptions: Set<String> {
        Set(
            (backups == nil ? [] : ["archive_mode", "archive_command"])
                + (tls == nil ? [] : ["ssl", "ssl_cert_file", "ssl_key_file", "ssl_ca_file"]))
    }

    /// Every PostgreSQL parameter of the cluster, as Patroni keeps them in etcd: the base ones, then
    /// `postgresql_parameters` (which win, but for ``keelOwnedOptions``), as the running release knows them
    /// (``RetiredParameters``).
    public var clusterParameters: [Parameter] {
        let parameters = RetiredParameters.on(postgresVersion, parameters)
        let own = Set(parameters.map(\.option)).subtracting(keelOwnedOptions)
        return baseParameters.filter { !own.contains($0.option) }
            + parameters.filter { !keelOwnedOptions.contains($0.option) }
    }

    /// The PostgreSQL parameters of `member` alone (`local_postgresql_parameters`, the last of a name wins), but
    /// for ``keelOwnedOptions``.
    public func localParameters(of member: String) -> [String: JSONValue] {
        RetiredParameters.on(postgresVersion, hostFlags[member]?.postgresqlParameters ?? [])
            .filter { !keelOwnedOptions.contains($0.option) }.reduce(into: [:]) { $0[$1.option] = $1.value }
    }

    /// `https` when etcd serves TLS, else `http`.
    public var etcdScheme: String { etcdTLS ? "https" : "http" }

    /// The client URLs of the etcd members, comma-separated.
    public var etcdEndpoints: String { etcdHosts.map { etcdClientURL(address(of: $0)) }.joined(separator: ",") }

    /// The URL an etcd member at `address` serves clients on.
    public func etcdClientURL(_ address: String) -> String {
        "\(etcdScheme)://\(address):\(ClusterPorts.etcdClient)"
    }

    /// The URL at which etcd member `host` talks to its peers.
    public func etcdPeerURL(of host: String) -> String {
        "\(etcdScheme)://\(address(of: host)):\(ClusterPorts.etcdPeer)"
    }

    /// Patroni's keys for this cluster in etcd, with the trailing slash that keeps a neighbour (`NAME2`) out.
    public var dcsPrefix: String { "/service/\(name)/" }

    /// The PostgreSQL Global Development Group's apt repository (apt.postgresql.org) or a mirror of it: every
    /// PostgreSQL release, and newer PgBouncer and pgBackRest than Debian's.
    public struct PGDGRepository: Sendable, Equatable {
        public static let official = "https://apt.postgresql.org/pub/repos/apt"
        /// The key Debian's postgresql-common ships for the official repository.
        public static let officialKeyPath = "/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc"

        /// The repository's base URL, without a trailing slash.
        public var url: String
        /// The ASCII-armored key a mirror signs with; nil for the official key.
        public var key: String?
    }
}
