import Keel

/// Deploys the cluster, or converges a running one to the inventory: etcd, then PostgreSQL and Patroni (the
/// primary first, then the replicas), backups, roles and databases, PgBouncer and the balancers. A second run
/// changes nothing.
public struct DeployFlow: ClusterFlow {
    public static let name = "deploy"
    public static let summary = "Deploy (or converge) the PostgreSQL HA cluster the inventory describes."
    public static let writesSecrets = true
    public static let needsPatroniWheel = true
    public static let installsExporters = true
    public static let acceptsSelection = true

    public init() {}

    public func plan(_ model: ClusterModel) -> String? { nil }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            HostPlays.preflight(model)
            HostPlays.common(model)
            EtcdPlays.cluster(model)
            EtcdPlays.restarts(model)
            PostgreSQLPlays.standaloneTakeover(model)
            BalancerPlays.haproxyBeforePatroni(model)
            PatroniPlays.members(model, wheel: software.patroniWheel)
            PgBackRestPlays.setup(model)
            PatroniPlays.primary(model)
            PatroniPlays.dynamicConfig(model)
            PatroniPlays.replicas(model)
            PatroniPlays.rollingRestart(model)
            PostgreSQLPlays.databaseObjects(model)
            PgBouncerPlays.poolers(model)
            PatroniPlays.inService(model)
            PgBackRestPlays.firstBackup(model)
            BalancerPlays.balancers(model)
            MonitoringPlays.exporters(model, carrying: software)
        }
    }
}
