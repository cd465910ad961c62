/// The variable names the cluster model reads, and the postgresql_cluster names it accepts without using, so
/// that any other name (a typo) is reported instead of silently ignored.
enum ClusterVariables {
    static let read: Set<String> = [
        "patroni_cluster_name", "postgresql_version", "pgdg_repository", "pgdg_repository_url", "pgdg_repository_key_file",
        "postgresql_port", "postgresql_data_dir", "postgresql_parameters",
        "postgresql_pg_hba", "postgresql_users", "postgresql_databases", "postgresql_extensions",
        "patroni_superuser_username", "patroni_superuser_password", "patroni_replication_username",
        "patroni_replication_password", "patroni_restapi_username", "patroni_restapi_password",
        "synchronous_mode", "synchronous_mode_strict", "synchronous_node_count",
        "patroni_ttl", "patroni_loop_wait", "patroni_retry_timeout", "patroni_version",
        "with_haproxy_load_balancing", "haproxy_listen_port", "cluster_vip", "vip_interface",
        "pgbouncer_install", "pgbouncer_listen_port", "pgbouncer_pools", "pgbouncer_default_pool_size",
        "pgbouncer_max_client_conn", "pgbackrest_install", "pgbackrest_repo_host", "pgbackrest_repo_type",
        "pgbackrest_repo_path", "pgbackrest_stanza", "pgbackrest_retention_full", "pgbackrest_full_backup_schedule", "pgbackrest_diff_backup_schedule",
        "etcd_allow_even_members", "keel_upgrade_patroni",
    ]

    /// Connection settings and postgresql_cluster's per-host flags: known, not cluster settings.
    static let accepted: Set<String> = [
        "ansible_connection", "ansible_host", "ansible_ssh_host", "ansible_port", "ansible_ssh_port", "ansible_user",
        "ansible_ssh_user", "ansible_ssh_private_key_file", "ansible_private_key_file", "ansible_become",
        "ansible_become_user", "ansible_become_method", "ansible_python_interpreter", "ansible_ssh_pass", "ansible_password",
        "ansible_ssh_common_args", "keel_host", "keel_port", "keel_user", "keel_private_key_file", "keel_become",
        "keel_become_user", "keel_password", "keel_known_hosts_file", "inventory_hostname",
        "hostname", "postgresql_exists", "new_node", "patroni_tags", "patroni_replicatefrom", "balancer_tags", "bind_address",
    ]

    /// The known name closest to `name`, when it is close enough to be the intended one.
    static func suggestion(for name: String) -> String? {
        let candidates = read.union(accepted).map { ($0, distance(name, $0)) }.filter { $0.1 <= 3 }
        return candidates.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
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
