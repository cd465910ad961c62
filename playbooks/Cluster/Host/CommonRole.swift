import Keel

/// Every host: what an earlier run's package work left finished (``PackagesSettled``), its server name when the
/// inventory gives one, base packages and the kernel settings the cluster
/// needs; on the hosts that get PostgreSQL or pgBackRest, the PGDG repository when the inventory asks for it; then
/// the packages of every role the host plays, in one transaction (see ``HostPackages``), held from
/// `unattended-upgrades`.
struct CommonRole: Role {
    let host: HostContext
    let model: ClusterModel

    var steps: [Step] {
        PackagesSettled()
        if let name = model.hostFlags[host.name]?.serverName {
            // The name resolves before the host takes it: sudo and others look their own name up.
            LineInFile("/etc/hosts", line: "127.0.1.1 \(name)", matching: #"^127\.0\.1\.1\s"#)
            File("/etc/hostname", content: name + "\n")
            Command(
                "hostname \(name)", what: "hostname \(name)", unless: "[ \"$(hostname)\" = \(name) ]")
        }
        Package("ca-certificates", "curl", "iproute2", "procps", "python3")
        Sysctl("net.ipv4.ip_nonlocal_bind", "1", tolerateRefusal: true)
        Sysctl("net.ipv4.ip_forward", "0", tolerateRefusal: true)
        Sysctl("vm.swappiness", "1", tolerateRefusal: true)
        if let pgdg = model.pgdg, model.databaseHosts.contains(host.name) || host.name == model.backups?.repositoryHost
        {
            PGDGSource(repository: pgdg).steps
        }
        if model.databaseHosts.contains(host.name) {
            MainClusterOff().steps
        }
        let packages = HostPackages.on(host.name, model)
        if !packages.isEmpty {
            Package(packages)
        }
        UnattendedUpgradesHold(host: host.name, model: model).steps
    }
}
