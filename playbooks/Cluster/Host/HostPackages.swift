import Keel

/// Every package the cluster's roles install on a host, so that a run installs them in one apt transaction early
/// (in ``CommonRole``) rather than one per role: each transaction reads the package lists again and runs dpkg's
/// triggers, and a balancer's packages then go in while the database hosts install PostgreSQL. Each role still
/// declares its own, so that `--tags` selecting one role installs what that role needs. The exporters are not
/// here: their packages start them unconfigured (on every address, without a password), so ``MonitoringRole``
/// installs them just before it configures them.
enum HostPackages {
    /// What the plays that run on `host` install there.
    static func on(_ host: String, _ model: ClusterModel) -> [String] {
        var packages: [String] = []
        if model.etcdHosts.contains(host) { packages += EtcdRole.packages }
        if model.databaseHosts.contains(host) {
            packages += PatroniNodeRole.packages(model)
            if model.vip?.placement == .leader { packages += PatroniNodeRole.vipPackages }
            if model.pgbouncer != nil { packages += PgBouncerRole.packages }
        }
        if let backups = model.backups, model.databaseHosts.contains(host) || host == backups.repositoryHost {
            packages += PgBackRestDatabaseRole.packages
        }
        if model.haproxy != nil && model.balancerHosts.contains(host) {
            packages += HAProxyRole.packages
            if model.vip != nil { packages += KeepalivedRole.packages }
        }
        if model.balancerPoolers.contains(host) { packages += PgBouncerRole.packages }
        var seen: Set<String> = []
        return packages.filter { seen.insert($0).inserted }
    }
}
