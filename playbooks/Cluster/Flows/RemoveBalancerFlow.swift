import Keel

/// Takes balancers out of the running cluster: a balancer holding the VIP hands it over first (its keepalived
/// stops, telling the others at once), the remaining balancers drop it from their unicast peers, then its HAProxy
/// stops. The last balancer cannot leave: the VIP would go with it.
public struct RemoveBalancerFlow: ClusterFlow, Sendable {
    public static let name = "remove-balancer"
    public static let summary =
        "Take balancers out of the running cluster, the VIP handed over first (the host's name typed confirms it)."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    let hosts: [String]

    public init(hosts: [String]) { self.hosts = hosts }

    public func check(_ model: ClusterModel) throws(FlowError) {
        guard !hosts.isEmpty else {
            throw FlowError("remove-balancer names no host", hint: "name the balancers to remove")
        }
        try refuseDuplicates(hosts, in: Self.name)
        for host in hosts where !model.balancerHosts.contains(host) {
            throw FlowError("\(host) is not in [balancers]", hint: "name a host of [balancers]")
        }
        guard model.haproxy != nil, model.vip != nil else {
            throw FlowError(
                "the cluster's balancers hold no VIP", hint: "set with_haproxy_load_balancing: true and cluster_vip")
        }
        guard model.balancerHosts.contains(where: { !hosts.contains($0) }) else {
            throw FlowError(
                "no balancer would remain to hold the VIP \(model.vip?.address ?? "")",
                hint: "add another balancer first (keel add-balancer)")
        }
    }

    /// The cluster once the balancers have left.
    private func remaining(_ model: ClusterModel) -> ClusterModel {
        var remaining = model
        remaining.balancerHosts.removeAll(where: hosts.contains)
        return remaining
    }

    /// What the run will do, for the operator to confirm.
    public var confirmations: [FlowConfirmation] { [.hostNames(hosts)] }

    public func targetsRemoved(_ model: ClusterModel) -> [String]? { hosts }

    public func plan(_ model: ClusterModel) -> String? {
        let others = remaining(model).balancerHosts.joined(separator: ", ")
        var lines = ["remove-balancer will, on cluster \(model.name):"]
        for host in hosts {
            lines.append(
                "  \(host): stop and disable keepalived (if it holds the VIP \(model.vip?.address ?? ""), one of "
                    + "\(others) takes it over at once); drop it from the unicast peers of \(others) (a reload); "
                    + "stop and disable HAProxy"
                    + (model.balancerPoolers.contains(host)
                        ? " and its PgBouncer, whose pg_hba line leaves the members (a reload)" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        let remaining = remaining(model)
        return Playbook(Self.name, summary: Self.summary, become: true) {
            BalancerPlays.vipHandedOver(model, leaving: hosts)
            BalancerPlays.keepalived(remaining)
            BalancerPlays.haproxyStopped(model, leaving: hosts)
            // Their PgBouncers' pg_hba lines go.
            if !model.balancerPoolers.isEmpty { PatroniPlays.access(remaining, on: model.databaseHosts) }
            MonitoringPlays.retired(model, on: hosts)
        }
        .stoppingAtFirstFailure()
    }
}
