extension ReferenceVariable {
    /// Keel's own entry for each name it treats apart from its file's treatment (the newest layout's win).
    static let catalog = releases1And2.merging(newestCommon) { _, newest in newest }
        .merging(newestPlaybooks) { _, newest in newest }

    /// The entries for the variables of releases 1.9 and 2.x.
    private static let releases1And2: [String: Treatment] = {
        var catalog = Catalog()
        // Features that are not part of a Keel cluster, or whose switch is refused below.
        catalog.add(
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
        catalog.add(
            .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
            [
                "wal_g", "wal_g_archive_command", "wal_g_backup_command", "wal_g_cron_jobs", "wal_g_delete_command",
                "wal_g_installation_method", "wal_g_json", "wal_g_package_file", "wal_g_path",
                "wal_g_patroni_cluster_bootstrap_command", "wal_g_version", "wal_g_ver", "wal_g_package_repo",
            ])
        catalog.add(.notApplicable("WAL-E: Keel backs up with pgBackRest"), ["wal_e"])
        catalog.add(
            .notApplicable("pg_probackup: Keel backs up with pgBackRest (pg_probackup_install)"),
            [
                "pg_probackup", "pg_probackup_add_keys", "pg_probackup_command_parts", "pg_probackup_dir",
                "pg_probackup_install_from_postgrespro_repo", "pg_probackup_instance",
                "pg_probackup_patroni_cluster_bootstrap_command", "pg_probackup_restore_command",
                "pg_probackup_threads", "pg_probackup_version",
            ])
        catalog.add(
            .notApplicable("Netdata is not installed (netdata_install)"), ["netdata_conf", "netdata_install_options"])
        catalog.add(
            .notApplicable("HAProxy built from source (haproxy_installation_method: src) is not supported yet"),
            [
                "haproxy_compile_requirements", "haproxy_major", "haproxy_package_file", "haproxy_src_file",
                "haproxy_src_repo", "haproxy_version", "lua_src_file", "lua_src_repo", "confd_package_file",
                "confd_package_repo",
            ])
        catalog.add(
            .notApplicable("packages from files (installation_method: file) are not supported yet"),
            [
                "etcd_package_file", "etcd_package_repo", "packages_from_file", "patroni_deb_package_file",
                "patroni_pip_package_file", "patroni_pip_requirements_file", "pip_package_file",
                "vip_manager_package_file",
            ])

        // Done Keel's own way.
        catalog.add(
            .equivalent("Keel installs Patroni from the wheel that patroni_version pins (patroni_wheel_sha256)"),
            [
                "patroni_installation_method", "patroni_packages", "patroni_deb_package_repo", "pip_package_repo",
                "patroni_pip_package_repo", "patroni_pip_requirements_repo",
            ])
        catalog.add(
            .equivalent(
                "Keel holds cluster_vip itself: keepalived on the balancers, or on the leader without HAProxy"),
            [
                "vip_manager_conf", "vip_manager_dcs_type", "vip_manager_iface", "vip_manager_interval",
                "vip_manager_ip", "vip_manager_mask", "vip_manager_package_repo", "vip_manager_version",
                "vip_manager_config", "vip_manager_conf_dir", "vip_manager_conf_file",
            ])
        catalog.add(.equivalent("Keel installs Debian's etcd-server package"), ["etcd_version", "etcd_ver"])
        catalog.add(
            .equivalent(
                "Keel finds out itself whether PostgreSQL runs: on the [master] host a standalone one is taken over, "
                    + "a member's data is kept"), ["postgresql_exists"])
        catalog.add(.equivalent("Keel names etcd's initial cluster token after the cluster"), ["etcd_cluster_name"])
        catalog.add(
            .equivalent("Keel talks to etcd over TLS with client certificates (etcd_tls_enable)"),
            ["patroni_etcd_protocol"])
        catalog.add(.equivalent("Keel installs Debian's haproxy package"), ["haproxy_install_repo"])
        catalog.add(
            .equivalent("Keel installs pgBackRest with PostgreSQL: from Debian, or from PGDG with pgdg_repository"),
            ["pgbackrest_install_from_pgdg_repo"])
        catalog.add(
            .equivalent(
                "Keel restarts the members whose running values differ, one by one, replicas first, when needed"),
            ["pending_restart"])
        catalog.add(
            .equivalent(
                "Keel runs backups from systemd timers: pgbackrest_full_backup_schedule, pgbackrest_diff_backup_schedule"
            ), ["pgbackrest_cron_jobs", "pgbackrest_cron"])
        catalog.add(
            .equivalent("Patroni logs to the journal (journalctl -u patroni), which rotates it"),
            [
                "patroni_log_dateformat", "patroni_log_destination", "patroni_log_dir", "patroni_log_file_num",
                "patroni_log_file_size", "patroni_log_format", "patroni_log_loggers_patroni_postmaster",
                "patroni_log_loggers_urllib3", "patroni_log_max_queue_size", "patroni_log_traceback_level",
            ])
        catalog.add(
            .equivalent(
                "keel restore waits for pgBackRest as long as it runs, keeps archiving on (the new timeline is archived) "
                    + "and drops patroni.dynamic.json for the model's configuration"),
            ["cluster_restore_timeout", "disable_archive_command", "keep_patroni_dynamic_json"])

        // Not supported yet: accepted at postgresql_cluster's value.
        catalog.add(.notSupportedYet("Keel's DCS is its own etcd on [etcd_cluster]"), ["dcs_type", "dcs_exists"])
        catalog.add(
            .notSupportedYet("Keel deploys its own etcd on [etcd_cluster], with client certificates"),
            ["patroni_etcd_hosts", "patroni_etcd_username", "patroni_etcd_password"])
        catalog.add(.notSupportedYet("Patroni's keys are under /service/"), ["patroni_etcd_namespace"])
        catalog.add(.notSupportedYet("etcd keeps its data in /var/lib/etcd/default"), ["etcd_data_dir"])
        catalog.add(.notSupportedYet("Keel does not use an HTTP proxy for downloads"), ["proxy_env"])
        catalog.add(.notSupportedYet("Keel installs from Debian's and PGDG's repositories"), ["installation_method"])
        catalog.add(
            .notSupportedYet("Keel installs Debian's haproxy package"),
            ["haproxy_installation_method"])
        catalog.add(.notSupportedYet("Patroni's release is patroni_version"), ["patroni_install_version"])
        catalog.add(
            .notSupportedYet("Keel installs the packages each component needs; install others yourself"),
            ["apt_repository", "apt_repository_keys", "system_packages", "os_specific_packages", "postgresql_packages"])
        catalog.add(.notSupportedYet("perf is not installed"), ["install_perf"])
        catalog.add(.notSupportedYet("Keel backs up with pgBackRest"), ["wal_g_install", "pg_probackup_install"])
        catalog.add(.notSupportedYet("Netdata is not installed"), ["netdata_install"])
        catalog.add(
            .notSupportedYet("Keel initialises PostgreSQL with UTF8, data checksums and the host's locale"),
            ["postgresql_encoding", "postgresql_locale", "postgresql_data_checksums"])
        catalog.add(
            .notSupportedYet("passwords are stored as scram-sha-256"), ["postgresql_password_encryption_algorithm"])
        catalog.add(
            .notSupportedYet("PostgreSQL listens on the member's address and the local socket"),
            ["postgresql_listen_addr"])
        catalog.add(
            .notSupportedYet("Keel uses Debian's PostgreSQL paths"),
            [
                "postgresql_bin_dir", "postgresql_cluster_name", "postgresql_conf_dir", "postgresql_home_dir",
                "postgresql_log_dir", "postgresql_unix_socket_dir", "postgresql_wal_dir",
                "postgresql_stats_temp_directory_path", "postgresql_stats_temp_directory_size",
            ])
        catalog.add(
            .notSupportedYet("Keel manages postgresql_users, postgresql_databases and postgresql_extensions"),
            ["postgresql_schemas", "postgresql_privs", "postgresql_pg_ident", "postgresql_pgpass"])
        catalog.add(
            .notSupportedYet("PgBouncer runs one process from /etc/pgbouncer with Keel's settings and a userlist"),
            [
                "pgbouncer_processes", "pgbouncer_conf_dir", "pgbouncer_log_dir", "pgbouncer_listen_addr",
                "pgbouncer_max_prepared_statements", "pgbouncer_admin_users", "pgbouncer_stats_users",
                "pgbouncer_ignore_startup_parameters", "pgbouncer_auth_type", "pgbouncer_auth_user",
                "pgbouncer_auth_username", "pgbouncer_auth_password", "pgbouncer_auth_dbname",
            ])
        catalog.add(
            .notSupportedYet(
                "PgBouncer's switch and limits are pgbouncer_install, pgbouncer_max_client_conn and "
                    + "pgbouncer_max_db_connections (1.x's names)"),
            ["install_pgbouncer", "max_client_conn", "max_db_connections"])
        catalog.add(
            .equivalent(
                "Keel writes PgBouncer's userlist from the superuser and postgresql_users, with their passwords"),
            ["pgbouncer_generate_userlist", "pgbouncer_users"])
        catalog.add(.equivalent("Keel derives it from postgresql_version"), ["postgresql_version_terse"])
        catalog.add(
            .notSupportedYet("PgBouncer's TLS uses the cluster's certificate (pgbouncer_client_tls_sslmode)"),
            [
                "pgbouncer_client_tls_ca_file", "pgbouncer_client_tls_cert_file", "pgbouncer_client_tls_key_file",
                "pgbouncer_client_tls_protocols", "pgbouncer_client_tls_ciphers",
            ])
        catalog.add(
            .notSupportedYet("HAProxy's limits and timeouts are Keel's"), ["haproxy_maxconn", "haproxy_timeout"])
        catalog.add(
            .notSupportedYet(
                "Patroni's REST API listens with TLS on the member's address, port \(ClusterPorts.patroniAPI)"),
            ["patroni_restapi_listen_addr", "patroni_restapi_port"])
        catalog.add(
            .notSupportedYet("Patroni runs with Keel's settings for these"),
            [
                "patroni_master_start_timeout", "patroni_maximum_lag_on_replica", "patroni_callbacks",
                "patroni_standby_cluster", "patroni_slots", "patroni_log_level", "patroni_watchdog_mode",
                "patroni_watchdog_device", "patroni_postgresql_use_pg_rewind",
                "patroni_remove_data_directory_on_rewind_failure",
                "patroni_remove_data_directory_on_diverged_timelines",
            ])
        catalog.add(
            .notSupportedYet(
                "a cluster starts with initdb and clones replicas from the leader; keel restore restores from pgBackRest"
            ),
            [
                "patroni_cluster_bootstrap_method", "patroni_create_replica_methods", "pgbackrest", "basebackup",
                "postgresql_restore_command", "pgbackrest_patroni_cluster_restore_command",
            ])
        catalog.add(
            .notSupportedYet(
                "Keel writes pgBackRest's configuration from the model; the repository's account is pgbackrest"),
            [
                "pgbackrest_conf", "pgbackrest_server_conf", "pgbackrest_conf_file", "pgbackrest_archive_command",
                "pgbackrest_repo_user",
            ])
        catalog.add(
            .notSupportedYet(
                "Keel leaves the host's own settings (DNS, time, locale, swap, kernel, limits, SSH, sudo, firewall, mounts) to you"
            ),
            [
                "nameservers", "etc_hosts", "ntp_enabled", "ntp_servers", "timezone", "locale_gen", "locale",
                "swap_file_create", "swap_file_path", "swap_file_size_mb", "sysctl_set", "sysctl_conf",
                "huge_pages_auto_conf", "disable_thp", "set_limits", "limits_user", "soft_nofile", "hard_nofile",
                "set_scheduler", "scheduler", "enable_ssh_key_based_authentication",
                "enable_SSH_Key_based_authentication", "locales", "ssh_key_user",
                "ssh_key_state", "ssh_known_hosts", "ssh_public_keys", "sudo_users", "firewall_enabled_at_boot",
                "firewall_allowed_tcp_ports_for", "firewall_additional_rules_for", "firewall_disable_firewalld",
                "firewall_disable_ufw", "mount",
            ])
        catalog.add(
            .notSupportedYet("Keel runs no commands or file copies of yours around a deploy"),
            [
                "fetch_files_from_master", "copy_files_to_all_server", "cron_jobs", "pre_deploy_command",
                "pre_deploy_command_timeout", "pre_deploy_command_hosts", "pre_deploy_command_print",
                "pre_deploy_command_print_result", "post_deploy_command", "post_deploy_command_timeout",
                "post_deploy_command_hosts", "post_deploy_command_print", "post_deploy_command_print_result",
            ])
        return catalog.entries
    }()
}
