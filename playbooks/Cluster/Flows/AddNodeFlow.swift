import Keel

/// Adds database replicas, and etcd members, to the running cluster without restarting any of its members.
///
/// The new hosts are prepared as a deploy prepares them, from the same model; the running members get only what
/// lets the new ones in (patroni.yml with their pg_hba lines and etcd's endpoints, applied by a Patroni reload);
/// new etcd members join one at a time; each new database member proves it can log in for replication to every
/// member before its Patroni starts, then is cloned and streams, caught up with the leader; finally HAProxy on
/// every balancer routes to it. `keel deploy` with the same inventory reaches the same end state.
public struct AddNodeFlow: ClusterFlow, Sendable {
    public static let name = "add-node"
    public static let summary =
        "Add database replicas and etcd members to the running cluster (hosts marked new_node=true, or named)."
    /// The new hosts' certificates are issued and kept.
    public static let writesSecrets = true
    public static let needsPatroniWheel = true
    public static let installsExporters = true

    /// The hosts named on the command line; empty means those marked `new_node=true`.
    let named: [String]
    /// Go on when the running cluster is not healthy.
    let force: Bool

    public init(hosts: [String], force: Bool) {
        named = hosts
        self.force = force
    }

    /// The hosts this run adds.
    func newHosts(_ model: ClusterModel) -> [String] {
        named.isEmpty
            ? model.newHosts.filter { model.databaseHosts.contains($0) || model.etcdHosts.contains($0) } : named
    }

    public func check(_ model: ClusterModel) throws(FlowError) {
        try refuseDuplicates(named, in: Self.name)
        let new = newHosts(model)
        guard !new.isEmpty else {
            throw FlowError(
                "add-node has no new host", hint: "mark the new hosts new_node=true in the inventory, or name them")
        }
        for host in new where !model.databaseHosts.contains(host) && !model.etcdHosts.contains(host) {
            throw FlowError(
                "\(host) is not a database or etcd host of the inventory",
                hint: model.balancerHosts.contains(host)
                    ? "a balancer joins with keel add-balancer" : "list it under [replica] or [etcd_cluster] first")
        }
        if let primary = model.primaryHost, new.contains(primary) {
            throw FlowError(
                "\(primary) is the [master] host, which started the cluster", hint: "a new host joins as a replica")
        }
        let running = model.databaseHosts.filter { !new.contains($0) }
        guard !running.isEmpty else {
            throw FlowError(
                "every database host is new: there is no running cluster to add to", hint: "use keel deploy")
        }
    }

    public func plan(_ model: ClusterModel) -> String? { nil }

    public func targetsRemoved(_ model: ClusterModel) -> [String]? { [] }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let new = newHosts(model)
        let newMembers = model.databaseHosts.filter(new.contains)
        let running = model.databaseHosts.filter { !new.contains($0) }
        let runningEtcd = model.etcdHosts.filter { !new.contains($0) }
        // A new member that fails anywhere must not reach HAProxy or the repository: the run stops there.
        return Playbook(Self.name, summary: Self.summary, become: true) {
            HostPlays.preflight(model)
            if !force {
                RunningClusterCheck.play(model, members: running, etcdMembers: runningEtcd, flow: Self.name)
            }
            HostPlays.common(model, on: new)
            EtcdPlays.joins(model, on: model.etcdHosts.filter(new.contains))
            PatroniPlays.access(model, on: running)
            PatroniPlays.members(model, wheel: software.patroniWheel, on: newMembers)
            PgBackRestPlays.setup(model)
            PatroniPlays.joining(model, on: newMembers)
            PgBouncerPlays.poolers(model, on: newMembers)
            BalancerPlays.haproxy(model)
            if model.monitoring != nil { MonitoringPlays.exporters(model, carrying: software, on: new) }
        }
        .stoppingAtFirstFailure()
    }
}
