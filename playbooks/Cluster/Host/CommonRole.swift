import Keel

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
        if let pgdg = model.pgdg, model.databaseHosts.contains(host.name) || host.name == model.backups?.repositoryHost
        {
            PGDGSource(repository: pgdg).steps
        }
    }
}
