import Keel

/// postgresql_cluster's (autobase's) variables that are not Keel settings, and what Keel makes of each, so that its
/// users can bring their `vars/main.yml`, `vars/system.yml` and `vars/Debian.yml` (releases 1.9 and 2.x) as they
/// are. The variables Keel honours are ``ClusterVariable``s; every other variable of those files is here.
public enum ReferenceVariable {
    enum Treatment: Equatable {
        /// Keel does the same its own way, told here: any value is accepted.
        case equivalent(String)
        /// Its feature is not part of a Keel cluster, or stays off (the switch that turns it on is itself not
        /// supported yet): any value is accepted.
        case notApplicable(String)
        /// Not supported yet: accepted while it holds postgresql_cluster's published value (the README's
        /// differences say where Keel's cluster differs), refused when set to anything else; says what Keel does.
        case notSupportedYet(String)
    }

    static func treatment(of name: String) -> Treatment? { catalog[name] }

    /// What postgresql_cluster reads from its `vars/Debian.yml` by itself, which its `vars/main.yml` refers to
    /// (`{{ postgresql_log_dir }}`): Debian's layout, which Keel uses too.
    static let debianLayout: [String: Variable] = [
        "postgresql_cluster_name": .string("main"),
        "postgresql_bin_dir": .string("/usr/lib/postgresql/{{ postgresql_version }}/bin"),
        "postgresql_conf_dir": .string("/etc/postgresql/{{ postgresql_version }}/{{ postgresql_cluster_name }}"),
        "postgresql_log_dir": .string("/var/log/postgresql"),
        "postgresql_unix_socket_dir": .string("/var/run/postgresql"),
        "postgresql_home_dir": .string("/var/lib/postgresql"),
        "postgresql_wal_dir": .string(""),
    ].mapValues { Variable($0, at: SourceLocation(file: "Keel's Debian layout", line: 0)) }

    /// What Keel makes of the variable `name` holding `value`, for `keel inventory --explain`.
    public static func explanation(of name: String, value: InventoryValue) -> String {
        if ClusterVariable(rawValue: name) != nil { return "a Keel setting" }
        if ConnectionVariable.all.contains(name) { return "how Keel connects to the host" }
        if Inventory.magicVariables.contains(name) || Facts.ansibleNames.contains(name) {
            return "Ansible's name for the host or its groups, or a fact of the host"
        }
        switch treatment(of: name) {
        case .equivalent(let how): return "done Keel's way: \(how)"
        case .notApplicable(let why): return "not applicable: \(why)"
        case .notSupportedYet(let instead):
            return isPublished(value, for: name)
                ? "postgresql_cluster's value, kept (not supported yet: \(instead))"
                : "REFUSED, not supported yet: \(instead)"
        case nil:
            return "UNKNOWN" + (ClusterVariable.suggestion(for: name).map { " (did you mean \($0)?)" } ?? "")
        }
    }

    /// Every name of the catalog.
    static var names: Dictionary<String, Treatment>.Keys { catalog.keys }

    /// Whether `value` is what postgresql_cluster publishes for `name` (in one of its releases).
    static func isPublished(_ value: InventoryValue, for name: String) -> Bool {
        published[name]?.contains(fingerprint(value)) ?? false
    }

    /// FNV-1a of the value's flow text: the published values are known by these, not copied.
    static func fingerprint(_ value: InventoryValue) -> UInt64 {
        value.description.utf8.reduce(0xcbf2_9ce4_8422_2325) { hash, byte in
            (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
    }

    private static let catalog: [String: Treatment] = {
        var catalog: [String: Treatment] = [:]
        func add(_ treatment: Treatment, _ names: [String]) {
            for name in names { catalog[name] = treatment }
        }
        // Features that are not part of a Keel cluster, or whose switch is refused below.
        add(
            .notApplicable("Consul: Keel's DCS is etcd (dcs_type)"),
            [
                "consul_bootstrap_expect", "consul_client_address", "consul_config_path", "consul_configd_path",
                "consul_data_path",
                "consul_datacenter", "consul_disable_update_check", "consul_dnsmasq_cache", "consul_dnsmasq_enable",
                "consul_dnsmasq_servers", "consul_domain", "consul_enable_local_script_checks",
                "consul_enable_script_checks", "consul_iface", "consul_install_from_repo", "consul_join",
                "consul_node_role",
                "consul_recursors", "consul_services", "consul_syslog_enable", "consul_tls_ca_crt", "consul_tls_enable",
                "consul_tls_server_crt", "consul_tls_server_key", "consul_ui", "consul_version",
            ])
        add(
            .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
            [
                "wal_g", "wal_g_archive_command", "wal_g_backup_command", "wal_g_cron_jobs", "wal_g_delete_command",
                "wal_g_installation_method", "wal_g_json", "wal_g_package_file", "wal_g_path",
                "wal_g_patroni_cluster_bootstrap_command", "wal_g_version",
            ])
        add(
            .notApplicable("pg_probackup: Keel backs up with pgBackRest (pg_probackup_install)"),
            [
                "pg_probackup", "pg_probackup_add_keys", "pg_probackup_command_parts", "pg_probackup_dir",
                "pg_probackup_install_from_postgrespro_repo", "pg_probackup_instance",
                "pg_probackup_patroni_cluster_bootstrap_command", "pg_probackup_restore_command",
                "pg_probackup_threads", "pg_probackup_version",
            ])
        add(.notApplicable("Netdata is not installed (netdata_install)"), ["netdata_conf", "netdata_install_options"])
        add(
            .notApplicable("HAProxy built from source (haproxy_installation_method: src) is not supported yet"),
            [
                "haproxy_compile_requirements", "haproxy_major", "haproxy_package_file", "haproxy_src_file",
                "haproxy_src_repo", "haproxy_version", "lua_src_file", "lua_src_repo", "confd_package_file",
                "confd_package_repo",
            ])
        add(
            .notApplicable("packages from files (installation_method: file) are not supported yet"),
            [
                "etcd_package_file", "etcd_package_repo", "packages_from_file", "patroni_deb_package_file",
                "patroni_pip_package_file", "patroni_pip_requirements_file", "pip_package_file",
                "vip_manager_package_file",
            ])

        // Done Keel's own way.
        add(
            .equivalent("Keel installs Patroni from the wheel that patroni_version pins (patroni_wheel_sha256)"),
            [
                "patroni_installation_method", "patroni_packages", "patroni_deb_package_repo", "pip_package_repo",
                "patroni_pip_package_repo", "patroni_pip_requirements_repo",
            ])
        add(
            .equivalent(
                "Keel holds cluster_vip itself: keepalived on the balancers, or on the leader without HAProxy"),
            [
                "vip_manager_conf", "vip_manager_dcs_type", "vip_manager_iface", "vip_manager_interval",
                "vip_manager_ip", "vip_manager_mask", "vip_manager_package_repo", "vip_manager_version",
            ])
        add(.equivalent("Keel installs Debian's etcd-server package"), ["etcd_version"])
        add(
            .equivalent(
                "Keel finds out itself whether PostgreSQL runs: on the [master] host a standalone one is taken over, "
                    + "a member's data is kept"), ["postgresql_exists"])
        add(.equivalent("Keel names etcd's initial cluster token after the cluster"), ["etcd_cluster_name"])
        add(
            .equivalent("Keel talks to etcd over TLS with client certificates (etcd_tls_enable)"),
            ["patroni_etcd_protocol"])
        add(.equivalent("Keel installs Debian's haproxy package"), ["haproxy_install_repo"])
        add(
            .equivalent("Keel installs pgBackRest with PostgreSQL: from Debian, or from PGDG with pgdg_repository"),
            ["pgbackrest_install_from_pgdg_repo"])
        add(
            .equivalent(
                "Keel restarts the members whose running values differ, one by one, replicas first, when needed"),
            ["pending_restart"])
        add(
            .equivalent(
                "Keel runs backups from systemd timers: pgbackrest_full_backup_schedule, pgbackrest_diff_backup_schedule"
            ), ["pgbackrest_cron_jobs"])
        add(
            .equivalent("Patroni logs to the journal (journalctl -u patroni), which rotates it"),
            [
                "patroni_log_dateformat", "patroni_log_destination", "patroni_log_dir", "patroni_log_file_num",
                "patroni_log_file_size", "patroni_log_format", "patroni_log_loggers_patroni_postmaster",
                "patroni_log_loggers_urllib3", "patroni_log_max_queue_size", "patroni_log_traceback_level",
            ])
        add(
            .equivalent(
                "keel restore waits for pgBackRest as long as it runs, keeps archiving on (the new timeline is archived) "
                    + "and drops patroni.dynamic.json for the model's configuration"),
            ["cluster_restore_timeout", "disable_archive_command", "keep_patroni_dynamic_json"])

        // Not supported yet: accepted at postgresql_cluster's value.
        add(.notSupportedYet("Keel's DCS is its own etcd on [etcd_cluster]"), ["dcs_type", "dcs_exists"])
        add(
            .notSupportedYet("Keel deploys its own etcd on [etcd_cluster], with client certificates"),
            ["patroni_etcd_hosts", "patroni_etcd_username", "patroni_etcd_password"])
        add(.notSupportedYet("Patroni's keys are under /service/"), ["patroni_etcd_namespace"])
        add(.notSupportedYet("etcd keeps its data in /var/lib/etcd/default"), ["etcd_data_dir"])
        add(.notSupportedYet("Keel does not use an HTTP proxy for downloads"), ["proxy_env"])
        add(.notSupportedYet("Keel installs from Debian's and PGDG's repositories"), ["installation_method"])
        add(
            .notSupportedYet("Keel installs Debian's haproxy package"),
            ["haproxy_installation_method"])
        add(.notSupportedYet("Patroni's release is patroni_version"), ["patroni_install_version"])
        add(
            .notSupportedYet("Keel installs the packages each component needs; install others yourself"),
            ["apt_repository", "apt_repository_keys", "system_packages", "os_specific_packages", "postgresql_packages"])
        add(.notSupportedYet("perf is not installed"), ["install_perf"])
        add(.notSupportedYet("Keel backs up with pgBackRest"), ["wal_g_install", "pg_probackup_install"])
        add(.notSupportedYet("Netdata is not installed"), ["netdata_install"])
        add(
            .notSupportedYet("Keel initialises PostgreSQL with UTF8, data checksums and the host's locale"),
            ["postgresql_encoding", "postgresql_locale", "postgresql_data_checksums"])
        add(.notSupportedYet("passwords are stored as scram-sha-256"), ["postgresql_password_encryption_algorithm"])
        add(
            .notSupportedYet("PostgreSQL listens on the member's address and the local socket"),
            ["postgresql_listen_addr"])
        add(
            .notSupportedYet("Keel uses Debian's PostgreSQL paths"),
            [
                "postgresql_bin_dir", "postgresql_cluster_name", "postgresql_conf_dir", "postgresql_home_dir",
                "postgresql_log_dir", "postgresql_unix_socket_dir", "postgresql_wal_dir",
                "postgresql_stats_temp_directory_path", "postgresql_stats_temp_directory_size",
            ])
        add(
            .notSupportedYet("Keel manages postgresql_users, postgresql_databases and postgresql_extensions"),
            ["postgresql_schemas", "postgresql_privs", "postgresql_pg_ident", "postgresql_pgpass"])
        add(
            .notSupportedYet("PgBouncer runs one process from /etc/pgbouncer with Keel's settings and a userlist"),
            [
                "pgbouncer_processes", "pgbouncer_conf_dir", "pgbouncer_log_dir", "pgbouncer_listen_addr",
                "pgbouncer_max_db_connections", "pgbouncer_max_prepared_statements", "pgbouncer_query_wait_timeout",
                "pgbouncer_default_pool_mode", "pgbouncer_admin_users", "pgbouncer_stats_users",
                "pgbouncer_ignore_startup_parameters", "pgbouncer_auth_type", "pgbouncer_auth_user",
                "pgbouncer_auth_username", "pgbouncer_auth_password", "pgbouncer_auth_dbname",
            ])
        add(
            .notSupportedYet("PgBouncer's TLS uses the cluster's certificate (pgbouncer_client_tls_sslmode)"),
            [
                "pgbouncer_client_tls_ca_file", "pgbouncer_client_tls_cert_file", "pgbouncer_client_tls_key_file",
                "pgbouncer_client_tls_protocols", "pgbouncer_client_tls_ciphers",
            ])
        add(.notSupportedYet("HAProxy's limits and timeouts are Keel's"), ["haproxy_maxconn", "haproxy_timeout"])
        add(
            .notSupportedYet(
                "Patroni's REST API listens with TLS on the member's address, port \(ClusterPorts.patroniAPI)"),
            ["patroni_restapi_listen_addr", "patroni_restapi_port"])
        add(
            .notSupportedYet("Patroni runs with Keel's settings for these"),
            [
                "patroni_master_start_timeout", "patroni_maximum_lag_on_replica", "patroni_callbacks",
                "patroni_standby_cluster", "patroni_slots", "patroni_log_level", "patroni_watchdog_mode",
                "patroni_watchdog_device", "patroni_postgresql_use_pg_rewind",
                "patroni_remove_data_directory_on_rewind_failure",
                "patroni_remove_data_directory_on_diverged_timelines",
            ])
        add(
            .notSupportedYet(
                "a cluster starts with initdb and clones replicas from the leader; keel restore restores from pgBackRest"
            ),
            [
                "patroni_cluster_bootstrap_method", "patroni_create_replica_methods", "pgbackrest", "basebackup",
                "postgresql_restore_command", "pgbackrest_patroni_cluster_restore_command",
            ])
        add(
            .notSupportedYet(
                "Keel writes pgBackRest's configuration from the model; the repository's account is pgbackrest"),
            [
                "pgbackrest_conf", "pgbackrest_server_conf", "pgbackrest_conf_file", "pgbackrest_archive_command",
                "pgbackrest_repo_user",
            ])
        add(
            .notSupportedYet(
                "Keel leaves the host's own settings (DNS, time, locale, swap, kernel, limits, SSH, sudo, firewall, mounts) to you"
            ),
            [
                "nameservers", "etc_hosts", "ntp_enabled", "ntp_servers", "timezone", "locale_gen", "locale",
                "swap_file_create", "swap_file_path", "swap_file_size_mb", "sysctl_set", "sysctl_conf",
                "huge_pages_auto_conf", "disable_thp", "set_limits", "limits_user", "soft_nofile", "hard_nofile",
                "set_scheduler", "scheduler", "enable_ssh_key_based_authentication", "ssh_key_user",
                "ssh_key_state", "ssh_known_hosts", "ssh_public_keys", "sudo_users", "firewall_enabled_at_boot",
                "firewall_allowed_tcp_ports_for", "firewall_additional_rules_for", "firewall_disable_firewalld",
                "firewall_disable_ufw", "mount",
            ])
        add(
            .notSupportedYet("Keel runs no commands or file copies of yours around a deploy"),
            [
                "fetch_files_from_master", "copy_files_to_all_server", "cron_jobs", "pre_deploy_command",
                "pre_deploy_command_timeout", "pre_deploy_command_hosts", "pre_deploy_command_print",
                "pre_deploy_command_print_result", "post_deploy_command", "post_deploy_command_timeout",
                "post_deploy_command_hosts", "post_deploy_command_print", "post_deploy_command_print_result",
            ])
        return catalog
    }()

    /// The fingerprints of postgresql_cluster's published values (1.9.0 and 2.1.0) of each variable not
    /// supported yet.
    private static let published: [String: Set<UInt64>] = [
        "apt_repository": [0x68a7e3937cb145b2, 0xadd931069ecd1d5e],
        "apt_repository_keys": [0x8249da37ba207c2b],
        "basebackup": [0xb93ab9c4041d6802, 0xeb904e25bf685570],
        "copy_files_to_all_server": [0x9612b07b5ecb5a5],
        "cron_jobs": [0x9612b07b5ecb5a5],
        "dcs_exists": [0xb5fae2c14238b978],
        "dcs_type": [0xc441a5607a45e7eb],
        "disable_thp": [0x5b5c98ef514dbfa5],
        "enable_ssh_key_based_authentication": [0xb5fae2c14238b978],
        "etc_hosts": [0x9612b07b5ecb5a5],
        "etcd_data_dir": [0x25a1da033e8c566a],
        "fetch_files_from_master": [0x9612b07b5ecb5a5],
        "firewall_additional_rules_for": [0x6440e05ac3738a15],
        "firewall_allowed_tcp_ports_for": [0xbaf02d0753228922],
        "firewall_disable_firewalld": [0x5b5c98ef514dbfa5],
        "firewall_disable_ufw": [0x5b5c98ef514dbfa5],
        "firewall_enabled_at_boot": [0xb5fae2c14238b978],
        "haproxy_installation_method": [0xca9a1618f461de00],
        "haproxy_maxconn": [0x59950c41a4a91b7b],
        "haproxy_timeout": [0x50a8cfc26949debd],
        "hard_nofile": [0x1c38f55eacac412f],
        "huge_pages_auto_conf": [0x5b5c98ef514dbfa5],
        "install_perf": [0xb5fae2c14238b978],
        "installation_method": [0x4cac581fbfac663d],
        "limits_user": [0x3b155ae7ca54d6ae],
        "locale": [0x3c0b9dbb221a629],
        "locale_gen": [0x5b8e195e7ae84325],
        "mount": [0x156cec7c31cc16d8],
        "nameservers": [0x9612b07b5ecb5a5],
        "netdata_install": [0xb5fae2c14238b978],
        "ntp_enabled": [0xb5fae2c14238b978],
        "ntp_servers": [0x9612b07b5ecb5a5],
        "os_specific_packages": [0x9a784bd13df6b1ee],
        "patroni_callbacks": [0x9612b07b5ecb5a5],
        "patroni_cluster_bootstrap_method": [0x3325c3da707d13d5],
        "patroni_create_replica_methods": [0x517d42cab7aa3a90],
        "patroni_etcd_hosts": [0x9612b07b5ecb5a5],
        "patroni_etcd_namespace": [0xcc37e1946446a284],
        "patroni_etcd_password": [0xcbf29ce484222325],
        "patroni_etcd_username": [0xcbf29ce484222325],
        "patroni_install_version": [0x376e34638197a4a6, 0xed62aba41ff6ee62],
        "patroni_log_level": [0xf5d6a8c57ab94f05],
        "patroni_master_start_timeout": [0x57288d1822492c52],
        "patroni_maximum_lag_on_replica": [0x82882476597995b3],
        "patroni_postgresql_use_pg_rewind": [0x5b5c98ef514dbfa5],
        "patroni_remove_data_directory_on_diverged_timelines": [0xb5fae2c14238b978],
        "patroni_remove_data_directory_on_rewind_failure": [0xb5fae2c14238b978],
        "patroni_restapi_listen_addr": [0x3d8f7d4a873c1889],
        "patroni_restapi_port": [0xec73ce3dd714f8a5],
        "patroni_slots": [0x9612b07b5ecb5a5],
        "patroni_standby_cluster": [0xf3703f672268a666],
        "patroni_watchdog_device": [0xa25c6699fd3993e1],
        "patroni_watchdog_mode": [0xb9d71edaf7aacf84],
        "pg_probackup_install": [0xb5fae2c14238b978],
        "pgbackrest": [0x426385db95b12fcc, 0xbe796fc91d3aff42],
        "pgbackrest_archive_command": [0x1108120d1ef34f8f],
        "pgbackrest_conf": [0x45c632bd31fad19e, 0x700c6a49343123e6],
        "pgbackrest_conf_file": [0x2a954f6fc8197e3a],
        "pgbackrest_patroni_cluster_restore_command": [0x77cf27ee4898fdc1],
        "pgbackrest_repo_user": [0x3b155ae7ca54d6ae],
        "pgbackrest_server_conf": [0x1e93f198c51e13d9, 0x59905bc2e8896a39],
        "pgbouncer_admin_users": [0x21b807690562869a],
        "pgbouncer_auth_dbname": [0x3b155ae7ca54d6ae],
        "pgbouncer_auth_password": [0xcbf29ce484222325, 0xdc5875c7b897e4a4],
        "pgbouncer_auth_type": [0x917628bfe25fc79],
        "pgbouncer_auth_user": [0x5b5c98ef514dbfa5],
        "pgbouncer_auth_username": [0xefe602f8bce90c6],
        "pgbouncer_client_tls_ca_file": [0xcbf29ce484222325],
        "pgbouncer_client_tls_cert_file": [0xcbf29ce484222325],
        "pgbouncer_client_tls_ciphers": [0xebada5168620c5fe],
        "pgbouncer_client_tls_key_file": [0xcbf29ce484222325],
        "pgbouncer_client_tls_protocols": [0xe5660aeee07403d0],
        "pgbouncer_conf_dir": [0x31bb1f2c2524d92],
        "pgbouncer_default_pool_mode": [0x3ca2c49553a457d7],
        "pgbouncer_ignore_startup_parameters": [0x85c384a4f8c66f77],
        "pgbouncer_listen_addr": [0x3d8f7d4a873c1889],
        "pgbouncer_log_dir": [0xdcde0d31c88a84d8],
        "pgbouncer_max_db_connections": [0xd8269f0f88e4a24, 0x82e4187659c7dffc],
        "pgbouncer_max_prepared_statements": [0xd8959f0f8944da2],
        "pgbouncer_processes": [0xaf63ac4c86019afc],
        "pgbouncer_query_wait_timeout": [0x456fc3181822c68e],
        "pgbouncer_stats_users": [0x21b807690562869a],
        "post_deploy_command": [0xcbf29ce484222325],
        "post_deploy_command_hosts": [0x3667715e6bb5b2bb],
        "post_deploy_command_print": [0x5b5c98ef514dbfa5],
        "post_deploy_command_print_result": [0x5b5c98ef514dbfa5],
        "post_deploy_command_timeout": [0x738d78024b6d673c],
        "postgresql_bin_dir": [0x6bc7edcb000fefed],
        "postgresql_cluster_name": [0x1f5962a2ce9803c8],
        "postgresql_conf_dir": [0xb72e477067e624e9],
        "postgresql_data_checksums": [0x5b5c98ef514dbfa5],
        "postgresql_encoding": [0x9864d4ef69edc7f2],
        "postgresql_home_dir": [0xad48f84b402e8bae],
        "postgresql_listen_addr": [0x3d8f7d4a873c1889],
        "postgresql_locale": [0x84977381df34fa89],
        "postgresql_log_dir": [0x31f9cd0aa323bb95],
        "postgresql_packages": [0x21b5304e4a54101f, 0x780c1b38e6865ef6],
        "postgresql_password_encryption_algorithm": [0x4f7ef55bdb8f633a],
        "postgresql_pg_ident": [0x9612b07b5ecb5a5],
        "postgresql_pgpass": [0xcd0088b3ec83e50a],
        "postgresql_privs": [0x9612b07b5ecb5a5],
        "postgresql_restore_command": [0xcbf29ce484222325],
        "postgresql_schemas": [0x9612b07b5ecb5a5],
        "postgresql_stats_temp_directory_path": [0x48c76744f2a8d819],
        "postgresql_stats_temp_directory_size": [0x94b1a376640036bd],
        "postgresql_unix_socket_dir": [0x8fb6993e5db03d48],
        "postgresql_wal_dir": [0xcbf29ce484222325],
        "pre_deploy_command": [0xcbf29ce484222325],
        "pre_deploy_command_hosts": [0x3667715e6bb5b2bb],
        "pre_deploy_command_print": [0x5b5c98ef514dbfa5],
        "pre_deploy_command_print_result": [0x5b5c98ef514dbfa5],
        "pre_deploy_command_timeout": [0x738d78024b6d673c],
        "proxy_env": [0x8f44b07b5901a25],
        "scheduler": [0x339f718ededfdace],
        "set_limits": [0x5b5c98ef514dbfa5],
        "set_scheduler": [0xb5fae2c14238b978],
        "soft_nofile": [0x24efff8487805dc2],
        "ssh_key_state": [0x6f3f2303c0258eac],
        "ssh_key_user": [0x3b155ae7ca54d6ae],
        "ssh_known_hosts": [0xffbbd1b2b54a57dd],
        "ssh_public_keys": [0x9612b07b5ecb5a5],
        "sudo_users": [0x73004ba4abc39cf0],
        "swap_file_create": [0x5b5c98ef514dbfa5],
        "swap_file_path": [0x2f801e1a63e6895f],
        "swap_file_size_mb": [0x18309e0b35807d6b, 0x437cf5d8938c2e92],
        "sysctl_conf": [0xd21a4dbfa6314215],
        "sysctl_set": [0x5b5c98ef514dbfa5],
        "system_packages": [0x8802938bc806dad6, 0xb261fdd964b8b29f],
        "timezone": [0xcbf29ce484222325],
        "wal_g_install": [0xb5fae2c14238b978],
    ]
}
