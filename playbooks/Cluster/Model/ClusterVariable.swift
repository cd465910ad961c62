import Keel

/// Every cluster setting the inventory may hold, by its postgresql_cluster name: each name is declared here once,
/// and the model reads it through this type, so a name Keel does not know (a typo) is reported, never ignored.
enum ClusterVariable: String, CaseIterable {
    case patroniClusterName = "patroni_cluster_name"
    case postgresqlVersion = "postgresql_version"
    case pgdgRepository = "pgdg_repository"
    case pgdgRepositoryURL = "pgdg_repository_url"
    case pgdgRepositoryKeyFile = "pgdg_repository_key_file"
    case postgresqlPort = "postgresql_port"
    case postgresqlDataDirectory = "postgresql_data_dir"
    case postgresqlParameters = "postgresql_parameters"
    case localPostgresqlParameters = "local_postgresql_parameters"
    case postgresqlHBA = "postgresql_pg_hba"
    case postgresqlUsers = "postgresql_users"
    case postgresqlDatabases = "postgresql_databases"
    case postgresqlExtensions = "postgresql_extensions"
    case superuserName = "patroni_superuser_username"
    case superuserPassword = "patroni_superuser_password"
    case replicationName = "patroni_replication_username"
    case replicationPassword = "patroni_replication_password"
    case restAPIName = "patroni_restapi_username"
    case restAPIPassword = "patroni_restapi_password"
    case synchronousMode = "synchronous_mode"
    case synchronousModeStrict = "synchronous_mode_strict"
    case synchronousNodeCount = "synchronous_node_count"
    case patroniTTL = "patroni_ttl"
    case patroniLoopWait = "patroni_loop_wait"
    case patroniRetryTimeout = "patroni_retry_timeout"
    case patroniMaximumLag = "patroni_maximum_lag_on_failover"
    case patroniFailsafeMode = "patroni_failsafe_mode"
    case maximumTransactionSeconds = "max_transaction_sec"
    case maximumReplicationLagBytes = "max_replication_lag_bytes"
    case patroniVersion = "patroni_version"
    case patroniWheelDigest = "patroni_wheel_sha256"
    case withHAProxy = "with_haproxy_load_balancing"
    case haproxyListenPort = "haproxy_listen_port"
    case clusterVIP = "cluster_vip"
    case vipInterface = "vip_interface"
    case keepalivedRouterID = "keepalived_virtual_router_id"
    case pgbouncerInstall = "pgbouncer_install"
    case pgbouncerListenPort = "pgbouncer_listen_port"
    case pgbouncerPools = "pgbouncer_pools"
    case pgbouncerDefaultPoolSize = "pgbouncer_default_pool_size"
    case pgbouncerMaxClientConnections = "pgbouncer_max_client_conn"
    case pgbouncerPoolMode = "pgbouncer_default_pool_mode"
    case pgbouncerMaxDatabaseConnections = "pgbouncer_max_db_connections"
    case pgbouncerQueryWaitTimeout = "pgbouncer_query_wait_timeout"
    case pgbackrestInstall = "pgbackrest_install"
    case pgbackrestRepositoryHost = "pgbackrest_repo_host"
    case pgbackrestRepositoryType = "pgbackrest_repo_type"
    case pgbackrestRepositoryPath = "pgbackrest_repo_path"
    case pgbackrestStanza = "pgbackrest_stanza"
    case pgbackrestRetentionFull = "pgbackrest_retention_full"
    case pgbackrestFullSchedule = "pgbackrest_full_backup_schedule"
    case pgbackrestDifferentialSchedule = "pgbackrest_diff_backup_schedule"
    case etcdAllowEvenMembers = "etcd_allow_even_members"
    case tlsCertGenerate = "tls_cert_generate"
    case tlsCertValidDays = "tls_cert_valid_days"
    case etcdTLS = "etcd_tls_enable"
    case pgbouncerClientTLSMode = "pgbouncer_client_tls_sslmode"
    case upgradePatroni = "keel_upgrade_patroni"
    case dataCopyTimeout = "keel_data_copy_timeout"
    /// Prometheus exporters on the cluster's hosts (``MonitoringSettings``).
    case keelMonitoring = "keel_monitoring"
    /// A host's own flag: it joins the running cluster with `keel add-node` (postgresql_cluster's marker).
    case newNode = "new_node"
    /// A host's own flags (see ``HostFlags``): the server's name, a member's Patroni tags and the member it streams
    /// from, a balancer's replica tags; and the address its services listen on, which must be the host's address.
    case hostname = "hostname"
    case patroniTags = "patroni_tags"
    case patroniReplicateFrom = "patroni_replicatefrom"
    case balancerTags = "balancer_tags"
    case bindAddress = "bind_address"

    /// Whether an inventory may hold `name`: a cluster setting, a connection setting or an accepted flag.
    static func isKnown(_ name: String) -> Bool {
        ClusterVariable(rawValue: name) != nil || ConnectionVariable.all.contains(name)
            || Facts.ansibleNames.contains(name) || Inventory.magicVariables.contains(name)
    }

    /// The known name closest to `name`, when it is close enough to be the intended one.
    static func suggestion(for name: String) -> String? {
        let known = allCases.map(\.rawValue) + ConnectionVariable.all + ReferenceVariable.knownNames
        // A typo changes a letter or two; a short name that far from a known one is another name, not a typo.
        let limit = name.count >= 12 ? 3 : name.count >= 6 ? 2 : 1
        return known.map { ($0, distance(name, $0)) }.filter { $0.1 <= limit }.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension VariableReader {
    func lookup(_ variable: ClusterVariable) throws(InventoryError) -> (name: String, variable: Variable)? {
        try lookup([variable.rawValue])
    }
    func origin(_ variable: ClusterVariable) -> SourceLocation? { written([variable.rawValue])?.variable.origin }
    /// The variable's text; with `kind`, checked to be of that kind (where it lands: a unit, a path, SQL…).
    func string(_ variable: ClusterVariable, _ kind: ClusterModel.ValueKind? = nil) throws(InventoryError) -> String? {
        guard let value = try string([variable.rawValue]) else { return nil }
        try kind?.check(value, named: variable.rawValue, at: origin(variable))
        return value
    }
    func int(_ variable: ClusterVariable, in range: ClosedRange<Int>? = nil) throws(InventoryError) -> Int? {
        try int([variable.rawValue], in: range)
    }
    func bool(_ variable: ClusterVariable) throws(InventoryError) -> Bool? { try bool([variable.rawValue]) }
}
