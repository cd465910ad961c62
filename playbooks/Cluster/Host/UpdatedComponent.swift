import Keel

/// What `keel update --only` may name: the packages of one part of the cluster.
public enum UpdatedComponent: String, CaseIterable, Sendable {
    case postgres, pgbouncer, pgbackrest, balancers, etcd

    /// The packages of this component Keel installed on `host` of `model`, with PostgreSQL's client and libpq,
    /// which come with the server and are updated with it.
    func packages(on host: String, _ model: ClusterModel) -> [String] {
        let installed = HostPackages.on(host, model)
        let own: [String] =
            switch self {
            case .postgres: PatroniNodeRole.packages(model)
            case .pgbouncer: PgBouncerRole.packages
            case .pgbackrest: PgBackRestDatabaseRole.packages
            case .balancers: HAProxyRole.packages + KeepalivedRole.packages
            case .etcd: EtcdRole.packages
            }
        let withServer =
            self == .postgres && installed.contains(PostgresPackages.server(model))
            ? [PostgresPackages.client(model), PostgresPackages.library] : []
        return own.filter(installed.contains) + withServer
    }
}

extension UpdatedComponent {
    /// The components `keel update` updates: those `--only` names, else those postgresql_cluster's `target` names
    /// (`-e target=postgres`, as its update_pgcluster.yml takes it), else every one.
    /// - Throws: ``FlowError`` for a `target` Keel's update does not do.
    public static func chosen(only: [UpdatedComponent], target: Variable?) throws(FlowError) -> [UpdatedComponent] {
        guard only.isEmpty else { return only }
        guard let target else { return allCases }
        switch target.value {
        case .string("postgres"): return [.postgres]
        case .string("patroni"):
            throw FlowError(
                "target=patroni (\(target.origin)): keel update keeps Patroni at patroni_version",
                hint: "set patroni_version to the release you want and run keel deploy (nothing was changed)")
        case .string("system"):
            throw FlowError(
                "target=system (\(target.origin)): keel update updates the cluster's own packages, not the whole "
                    + "system",
                hint:
                    "leave target out to update every cluster package (or choose with --only), and update the "
                    + "hosts' other packages with apt (nothing was changed)")
        default:
            throw FlowError(
                "target=\(target.value) (\(target.origin)) is not one of postgres, patroni, system",
                hint: "leave target out, or choose with --only (nothing was changed)")
        }
    }
}
