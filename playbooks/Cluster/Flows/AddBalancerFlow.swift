import Keel

/// Adds balancers (HAProxy and keepalived) to the running cluster without the VIP ever on two hosts.
///
/// The new hosts are prepared as a deploy prepares them; their HAProxy is proven to route to the leader and to the
/// replicas before keepalived starts anywhere; every balancer's keepalived then learns the new peers in the order
/// ``KeepalivedReload`` explains (backups stopped, the VIP holder reloaded, all started one by one), so the new
/// balancers start as backups hearing the holder. `keel deploy` with the same inventory reaches the same end state.
public struct AddBalancerFlow: ClusterFlow, Sendable {
    public static let name = "add-balancer"
    public static let summary =
        "Add HAProxy and keepalived balancers to the running cluster (hosts marked new_node=true, or named)."
    /// A balancer's PgBouncer gets a certificate of the cluster's CA.
    public static let writesSecrets = true
    public static let needsPatroniWheel = false
    public static let installsExporters = true

    /// The hosts named on the command line; empty means the balancers marked `new_node=true`.
    let named: [String]

    public init(hosts: [String]) { named = hosts }

    /// The hosts this run adds.
    func newHosts(_ model: ClusterModel) -> [String] {
        named.isEmpty ? model.newHosts.filter(model.balancerHosts.contains) : named
    }

    public func check(_ model: ClusterModel) throws(FlowError) {
        try refuseDuplicates(named, in: Self.name)
        guard model.haproxy != nil, model.vip != nil else {
            throw FlowError(
                "the cluster has no balancers to add to",
                hint: "set with_haproxy_load_balancing: true and cluster_vip, then run keel deploy")
        }
        let new = newHosts(model)
        guard !new.isEmpty else {
            throw FlowError(
                "add-balancer has no new host",
                hint: "mark the new hosts new_node=true under [balancers] in the inventory, or name them")
        }
        for host in new where !model.balancerHosts.contains(host) {
            throw FlowError(
                "\(host) is not in [balancers]",
                hint: model.databaseHosts.contains(host) || model.etcdHosts.contains(host)
                    ? "a database or etcd host joins with keel add-node" : "list it under [balancers] first")
        }
        guard model.balancerHosts.contains(where: { !new.contains($0) }) else {
            throw FlowError("every balancer is new: there is no running VIP to join", hint: "use keel deploy")
        }
    }

    public func plan(_ model: ClusterModel) -> String? { nil }

    /// The running members, whose pg_hba lets the new PgBouncers in (the new balancers are finished as deploy does).
    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        HostReadiness(hosts: model.databaseHosts, members: model.databaseHosts)
    }

    public func targetsRemoved(_ model: ClusterModel) -> [String]? { [] }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let new = newHosts(model)
        return Playbook(Self.name, summary: Self.summary, become: true) {
            HostPlays.preflight(model)
            HostPlays.common(model, on: new)
            if !model.balancerPoolers.isEmpty {
                // pg_hba lets the new PgBouncers in; they start before HAProxy routes for them.
                PatroniPlays.access(model, on: model.databaseHosts)
                PgBouncerPlays.poolers(model, on: new.filter(model.balancerPoolers.contains))
            }
            BalancerPlays.haproxy(model, on: new)
            if !model.replicaHosts.isEmpty { BalancerPlays.routingToReplicas(model, on: new) }
            BalancerPlays.keepalived(model)
            if model.monitoring != nil { MonitoringPlays.exporters(model, carrying: software, on: new) }
        }
        .stoppingAtFirstFailure()
    }
}
