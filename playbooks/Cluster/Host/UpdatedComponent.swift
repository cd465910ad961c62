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
            self == .postgres && installed.contains("postgresql-\(model.postgresVersion)")
            ? ["postgresql-client-\(model.postgresVersion)", "libpq5"] : []
        return own.filter(installed.contains) + withServer
    }
}
