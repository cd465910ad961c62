/// The ports of the cluster's services that the inventory does not choose (PostgreSQL's, PgBouncer's and
/// HAProxy's listeners come from it): configurations, checks and pre-flight all read them here.
public enum ClusterPorts {
    /// etcd's clients: Patroni, etcdctl.
    public static let etcdClient = 2379
    /// etcd's members among themselves.
    public static let etcdPeer = 2380
    /// Patroni's REST API: HAProxy's health checks, Keel's calls, the members' own.
    public static let patroniAPI = 8008
    /// HAProxy's listener on a balancer's loopback that the balancer's PgBouncer reaches the leader through.
    public static let pooledLeader = 5010
    /// The exporters Prometheus scrapes (``MonitoringTarget``), at their packages' usual ports.
    public static let nodeExporter = 9100
    public static let postgresExporter = 9187
    public static let pgbouncerExporter = 9127
    /// HAProxy's own Prometheus endpoint on a balancer (HAProxy's documentation uses 8405).
    public static let haproxyMetrics = 8405
}
