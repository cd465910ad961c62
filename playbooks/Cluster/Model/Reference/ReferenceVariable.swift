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

    /// What Keel makes of `name`: its own entry, or else that of the reference's file it comes from.
    static func treatment(of name: String) -> Treatment? {
        catalog[name] ?? published[name].flatMap { byFile[$0.file] }
    }

    /// What Keel makes of the variables of a whole role's defaults (2026-03 layout), unless a name has an entry.
    private static let byFile: [String: Treatment] = [
        "consul": .notApplicable("Consul: Keel's DCS is etcd (dcs_type)"),
        "cloud_resources": .notApplicable(
            "cloud resources (servers, buckets, load balancers): Keel deploys onto the inventory's hosts"),
        "firewall": .notApplicable("the firewall is not managed (firewall_enabled_at_boot)"),
        "upgrade": .notApplicable("pg_upgrade.yml's settings: the major upgrade is not a Keel flow yet"),
        "update": .equivalent(
            "keel update checks the cluster's health and replication itself; --only (or target=postgres) chooses "
                + "the components"),
        "wal_g": .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
        "etcd": .equivalent("Keel installs Debian's etcd-server package"),
        "packages": .equivalent("Keel installs Debian's packages, or PGDG's with pgdg_repository"),
        "pgbackrest": .equivalent("Keel installs pgBackRest with PostgreSQL: from Debian, or from PGDG"),
        "confd": .equivalent("Keel renders HAProxy's configuration from the model; its checks follow the leader"),
        "vip_manager": .equivalent(
            "Keel holds cluster_vip itself: keepalived on the balancers, or on the leader without HAProxy"),
        "keepalived": .equivalent("Keel configures keepalived for cluster_vip itself"),
    ]

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
            return ClusterVariable.suggestion(for: name).map { "UNKNOWN (did you mean \($0)?)" }
                ?? "ignored: Keel does not use it (another tool's variable?)"
        }
    }

    /// The names with an entry of their own.
    static var names: Dictionary<String, Treatment>.Keys { catalog.keys }

    /// Every name of the reference's files and of the catalog: a near-miss of one is a typo.
    static var knownNames: Set<String> { Set(catalog.keys).union(published.keys) }

    /// Whether `value` is what postgresql_cluster publishes for `name` (in one of its releases).
    static func isPublished(_ value: InventoryValue, for name: String) -> Bool {
        published[name]?.values.contains(fingerprint(value)) ?? false
    }

    /// A variable of the reference's files (``published``).
    struct Published {
        /// The file it comes from, in the newest release that has it: a role's defaults (`common`, `consul`…),
        /// `main`, `system`, `Debian` or `inventory`.
        let file: String
        /// The fingerprints of its values in the releases.
        let values: Set<UInt64>

        init(_ file: String, _ values: Set<UInt64>) {
            self.file = file
            self.values = values
        }
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
                "pgbouncer_max_prepared_statements", "pgbouncer_admin_users", "pgbouncer_stats_users",
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

        // The 2026-03 layout's roles/common.yml.
        add(
            .notApplicable("time sync is the host's own (ntp_enabled)"),
            [
                "chrony_allow_networks", "chrony_enable_logging", "chrony_leapsectz", "chrony_makestep_limit",
                "chrony_makestep_threshold", "chrony_maxdistance", "chrony_maxupdateskew", "chrony_minsources",
                "ntp_package",
            ])
        add(
            .equivalent("Keel renders HAProxy's configuration from the model; its checks follow the leader"),
            ["confd_install", "confd_version"])
        add(
            .notApplicable("Consul: Keel's DCS is etcd (dcs_type)"),
            ["consul_on_dedicated_nodes", "consul_tls_ca_key", "consul_tls_dir"])
        add(.notApplicable("Keel adds or removes no logrotate rule"), ["disable_logrotate_for_postgresql"])
        add(
            .equivalent(
                "Keel holds the cluster's packages back from unattended-upgrades; keel update updates them"),
            ["disable_unattended_upgrades"])
        add(
            .equivalent("Keel installs Debian's etcd-server package"),
            ["etcd_bin_dir", "etcd_conf_dir", "etcd_installation_method", "etcd_os_specific_packages", "etcd_packages"])
        add(.equivalent("etcd runs on the [etcd_cluster] hosts, dedicated or not"), ["etcd_on_dedicated_nodes"])
        add(
            .equivalent(
                "Keel makes the cluster's CA and each host's certificates itself, for etcd, Patroni's API, PostgreSQL "
                    + "and PgBouncer, and checks them both ways"),
            [
                "etcd_client_cert_auth", "etcd_tls_ca_crt", "etcd_tls_ca_key", "etcd_tls_dir", "etcd_tls_server_crt",
                "etcd_tls_server_key", "patroni_etcd_cacert", "patroni_etcd_cert", "patroni_etcd_key",
                "patroni_restapi_cafile", "patroni_restapi_certfile", "patroni_restapi_keyfile",
                "patroni_restapi_protocol", "tls_ca_cert", "tls_ca_key", "tls_cert", "tls_dir", "tls_privatekey",
                "pgbouncer_tls_dir", "host_type",
            ])
        add(
            .notApplicable("Red Hat family hosts: Keel deploys on Debian"),
            [
                "glibc_langpack", "install_epel_repo", "yum_repository", "patroni_rpm_package_repo",
                "install_postgresql_repo", "install_postgresql_repo_extras", "postgresql_version_minor",
                "postgresql_package_release",
            ])
        add(
            .equivalent("Keel checks the hosts itself (Debian 12, apt, python3 for Patroni's virtualenv)"),
            ["pkg_type", "os_minimum_versions", "os_valid_distributions", "python_version"])
        add(
            .notSupportedYet("Keel installs the packages each component needs; install others yourself"),
            [
                "patroni_os_specific_packages", "postgresql_os_specific_packages", "system_os_specific_packages",
                "postgresql_package_version_full",
            ])
        add(
            .notSupportedYet("Patroni runs with Keel's settings for these"),
            [
                "patroni_replication_auth_options", "patroni_superuser_auth_options",
                "postgresql_local_replication_auth_method", "patroni_use_unix_socket", "patroni_use_unix_socket_repl",
                "patroni_restapi_request_queue_size", "patroni_watchdog_configure_softdog",
            ])
        add(
            .notApplicable("a standby cluster is not supported yet (patroni_standby_cluster)"),
            ["patroni_standby_cluster_auto_hba"])
        add(
            .notSupportedYet(
                "a cluster starts with initdb and clones replicas from the leader; keel restore restores from pgBackRest"
            ), ["pgbackrest_patroni_cluster_bootstrap_recovery_conf", "pgbackrest_patroni_cluster_clean_bootstrap"])
        add(
            .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
            ["wal_g_patroni_cluster_bootstrap_recovery_conf", "wal_g_prefetch_dir_create", "wal_g_prefetch_dir_path"])
        add(
            .notSupportedYet("PgBouncer reaches PostgreSQL on its own host (127.0.0.1), without TLS"),
            [
                "pgbouncer_server_tls_ca_file", "pgbouncer_server_tls_cert_file", "pgbouncer_server_tls_ciphers",
                "pgbouncer_server_tls_key_file", "pgbouncer_server_tls_protocols", "pgbouncer_server_tls_sslmode",
            ])
        add(
            .notSupportedYet("Keel runs no commands or file copies of yours around a deploy"),
            ["pre_deploy_command_log", "post_deploy_command_log"])
        add(
            .notSupportedYet("archiving is pgBackRest's archive-push when pgbackrest_install is true"),
            ["postgresql_archive_command"])
        add(
            .notSupportedYet(
                "Keel sets no parameters from the host's memory by itself: give them in postgresql_parameters"),
            ["local_postgresql_parameters"])
        add(
            .notSupportedYet(
                "Keel leaves the host's own settings (DNS, time, locale, swap, kernel, limits, SSH, sudo, firewall, mounts) to you"
            ), ["sysctl_file"])
        return catalog
    }()
}
