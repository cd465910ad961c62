extension ReferenceVariable {
    /// The entries for the 2026-03 layout's roles/common.yml.
    static let newestCommon: [String: Treatment] = {
        var catalog = Catalog()
        catalog.add(
            .notApplicable("time sync is the host's own (ntp_enabled)"),
            [
                "chrony_allow_networks", "chrony_enable_logging", "chrony_leapsectz", "chrony_makestep_limit",
                "chrony_makestep_threshold", "chrony_maxdistance", "chrony_maxupdateskew", "chrony_minsources",
                "ntp_package",
            ])
        catalog.add(
            .equivalent("Keel renders HAProxy's configuration from the model; its checks follow the leader"),
            ["confd_install", "confd_version"])
        catalog.add(
            .notApplicable("Consul: Keel's DCS is etcd (dcs_type)"),
            ["consul_on_dedicated_nodes", "consul_tls_ca_key", "consul_tls_dir"])
        catalog.add(.notApplicable("Keel adds or removes no logrotate rule"), ["disable_logrotate_for_postgresql"])
        catalog.add(
            .equivalent(
                "Keel holds the cluster's packages back from unattended-upgrades; keel update updates them"),
            ["disable_unattended_upgrades"])
        catalog.add(
            .equivalent("Keel installs Debian's etcd-server package"),
            ["etcd_bin_dir", "etcd_conf_dir", "etcd_installation_method", "etcd_os_specific_packages", "etcd_packages"])
        catalog.add(.equivalent("etcd runs on the [etcd_cluster] hosts, dedicated or not"), ["etcd_on_dedicated_nodes"])
        catalog.add(
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
        catalog.add(
            .notApplicable("Red Hat family hosts: Keel deploys on Debian"),
            [
                "glibc_langpack", "install_epel_repo", "yum_repository", "patroni_rpm_package_repo",
                "install_postgresql_repo", "install_postgresql_repo_extras", "postgresql_version_minor",
                "postgresql_package_release",
            ])
        catalog.add(
            .equivalent("Keel checks the hosts itself (Debian 12, apt, python3 for Patroni's virtualenv)"),
            ["pkg_type", "os_minimum_versions", "os_valid_distributions", "python_version"])
        catalog.add(
            .notSupportedYet("Keel installs the packages each component needs; install others yourself"),
            [
                "patroni_os_specific_packages", "postgresql_os_specific_packages", "system_os_specific_packages",
                "postgresql_package_version_full",
            ])
        catalog.add(
            .notSupportedYet("Patroni runs with Keel's settings for these"),
            [
                "patroni_replication_auth_options", "patroni_superuser_auth_options",
                "postgresql_local_replication_auth_method", "patroni_use_unix_socket", "patroni_use_unix_socket_repl",
                "patroni_restapi_request_queue_size", "patroni_watchdog_configure_softdog",
            ])
        catalog.add(
            .notApplicable("a standby cluster is not supported yet (patroni_standby_cluster)"),
            ["patroni_standby_cluster_auto_hba"])
        catalog.add(
            .notSupportedYet(
                "a cluster starts with initdb and clones replicas from the leader; keel restore restores from pgBackRest"
            ), ["pgbackrest_patroni_cluster_bootstrap_recovery_conf", "pgbackrest_patroni_cluster_clean_bootstrap"])
        catalog.add(
            .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
            ["wal_g_patroni_cluster_bootstrap_recovery_conf", "wal_g_prefetch_dir_create", "wal_g_prefetch_dir_path"])
        catalog.add(
            .notSupportedYet("PgBouncer reaches PostgreSQL on its own host (127.0.0.1), without TLS"),
            [
                "pgbouncer_server_tls_ca_file", "pgbouncer_server_tls_cert_file", "pgbouncer_server_tls_ciphers",
                "pgbouncer_server_tls_key_file", "pgbouncer_server_tls_protocols", "pgbouncer_server_tls_sslmode",
            ])
        catalog.add(
            .notSupportedYet("Keel runs no commands or file copies of yours around a deploy"),
            ["pre_deploy_command_log", "post_deploy_command_log"])
        catalog.add(
            .notSupportedYet("archiving is pgBackRest's archive-push when pgbackrest_install is true"),
            ["postgresql_archive_command"])
        catalog.add(
            .notSupportedYet(
                "Keel leaves the host's own settings (DNS, time, locale, swap, kernel, limits, SSH, sudo, firewall, mounts) to you"
            ), ["sysctl_file"])
        return catalog.entries
    }()
}
