/// Where PgBouncer runs and what it pools for.
extension ClusterModel {
    /// The balancers that are not database hosts, when the cluster has HAProxy and PgBouncer: each runs a PgBouncer
    /// of its own behind the VIP, which reaches the leader through the balancer's HAProxy. A client connected there
    /// keeps its connection through a switchover (PgBouncer holds its queries while the leader's role moves),
    /// which a member's PgBouncer, in front of that member's PostgreSQL only, cannot do. (A balancer that is also a
    /// database host keeps its member's PgBouncer, which HAProxy routes to.)
    public var balancerPoolers: [String] {
        guard pgbouncer != nil, haproxy != nil else { return [] }
        return balancerHosts.filter { !databaseHosts.contains($0) }
    }

    /// Every host PgBouncer runs on: the database hosts, then the balancers' own.
    public var poolerHosts: [String] {
        pgbouncer == nil ? [] : databaseHosts + balancerPoolers
    }
}
