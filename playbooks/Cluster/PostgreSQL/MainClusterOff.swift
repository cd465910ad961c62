import Keel

/// Debian's PostgreSQL packages create and start a `main` cluster when they are installed; Patroni creates the
/// cluster instead, so this setting is in place before any of them is.
struct MainClusterOff: Role {
    var steps: [Step] {
        Directory("/etc/postgresql-common")
        File(
            "/etc/postgresql-common/createcluster.conf",
            content: "# Managed by Keel: Patroni creates the cluster.\ncreate_main_cluster = false\n")
    }
}
