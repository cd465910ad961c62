import Keel

/// Takes database replicas, or etcd members, out of the running cluster: HAProxy stops routing to them first,
/// then their Patroni stops, the DCS forgets them, the remaining members drop their replication slots and their
/// pg_hba lines (a reload), etcd removes them from its membership, and the repository its entries. Their data
/// directory stays unless asked otherwise, and the same host can be added again later.
public struct RemoveNodeFlow: ClusterFlow, Sendable {
    public static let name = "remove-node"
    public static let summary =
        "Take database replicas or etcd members out of the running cluster (the host's name typed confirms it)."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    let hosts: [String]
    /// Also delete the data directory on the hosts leaving.
    let wipeData: Bool

    public init(hosts: [String], wipeData: Bool) {
        self.hosts = hosts
        self.wipeData = wipeData
    }

    public func check(_ model: ClusterModel) throws(FlowError) {
        guard !hosts.isEmpty else { throw FlowError("remove-node names no host", hint: "name the hosts to remove") }
        try refuseDuplicates(hosts, in: Self.name)
        for host in hosts where !model.databaseHosts.contains(host) && !model.etcdHosts.contains(host) {
            throw FlowError(
                "\(host) is not a database or etcd host of the inventory",
                hint: "name a host of [postgres_cluster] or [etcd_cluster]")
        }
        if let primary = model.primaryHost, hosts.contains(primary) {
            throw FlowError(
                "\(primary) is the inventory's [master] host",
                hint: "name another member under [master] first (switch over to it if it is the leader)")
        }
        if model.databaseHosts.allSatisfy(hosts.contains) {
            throw FlowError("no database host would remain", hint: "to remove the whole cluster, use remove-cluster")
        }
        let remaining = model.without(hosts)
        let quorum = model.etcdHosts.count / 2 + 1
        if remaining.etcdHosts.count < quorum {
            throw FlowError(
                "\(remaining.etcdHosts.count) of the \(model.etcdHosts.count) etcd members would stay, fewer than its quorum (\(quorum))",
                hint: "remove etcd members a few at a time, keeping a majority, and add new ones in between")
        }
        if model.patroni.synchronousMode, model.patroni.synchronousNodeCount > remaining.synchronousCandidates {
            throw FlowError(
                "\(remaining.synchronousCandidates) replica(s) would stay to be synchronous standbys, and synchronous_node_count is \(model.patroni.synchronousNodeCount)",
                hint: "add a replica first, or lower synchronous_node_count and deploy")
        }
    }

    /// What the run will do, for the operator to confirm.
    public var confirmations: [FlowConfirmation] { [.hostNames(hosts)] }

    public func targetsRemoved(_ model: ClusterModel) -> [String]? { hosts }

    /// The hosts that stay (the leaving ones may be half-added: removing them is what to do with them).
    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        let remaining = model.without(hosts)
        return HostReadiness(hosts: remaining.allHosts, members: remaining.databaseHosts)
    }

    public func plan(_ model: ClusterModel) -> String? {
        let remaining = model.without(hosts)
        var lines = ["remove-node will, on cluster \(model.name):"]
        for host in hosts {
            var steps: [String] = []
            if model.databaseHosts.contains(host) {
                if model.haproxy != nil {
                    steps.append("take it out of HAProxy on \(model.balancerHosts.joined(separator: ", "))")
                }
                steps.append("stop and disable Patroni\(model.pgbouncer != nil ? " and PgBouncer" : "") on it")
                steps.append("delete its key in the DCS and its replication slot on the remaining members")
                steps.append("remove its pg_hba lines on \(remaining.databaseHosts.joined(separator: ", ")) (a reload)")
                if let repository = model.backups?.repositoryHost {
                    steps.append("remove its entry from the pgBackRest repository on \(repository)")
                }
                steps.append(
                    wipeData
                        ? "DELETE its data directory \(model.dataDirectory)"
                        : "keep its data directory \(model.dataDirectory) (--wipe-data deletes it)")
            }
            if model.etcdHosts.contains(host) {
                steps.append(
                    "remove it from etcd (\(remaining.etcdHosts.count) members stay), stop its etcd and clear its etcd data"
                )
            }
            lines.append("  \(host): " + steps.joined(separator: "; "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let remaining = model.without(hosts)
        let leavingMembers = model.databaseHosts.filter(hosts.contains)
        let leavingEtcd = model.etcdHosts.filter(hosts.contains)
        // Each step relies on the one before (HAProxy no longer routes to it before it stops): the first failure
        // stops the run.
        return Playbook(Self.name, summary: Self.summary, become: true) {
            RemovalGuard.play(model, leaving: hosts)
            BalancerPlays.haproxy(remaining)
            PatroniPlays.stopped(model, leaving: leavingMembers)
            PatroniPlays.forgotten(model, leaving: leavingMembers)
            PatroniPlays.access(remaining, on: remaining.databaseHosts)
            EtcdPlays.left(model, leaving: leavingEtcd)
            PgBackRestPlays.setup(remaining)
            if wipeData { PostgreSQLPlays.dataRemoved(model, on: leavingMembers) }
            MonitoringPlays.retired(model, on: hosts)
        }
        .stoppingAtFirstFailure()
    }
}
