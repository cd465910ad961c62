import Keel

/// The plays of the balancers: HAProxy in front of the members and keepalived holding the VIP.
enum BalancerPlays {
    /// HAProxy, then keepalived with the VIP, on the `[balancers]` hosts when the inventory asks for HAProxy.
    static func balancers(_ model: ClusterModel) -> [Play] {
        var plays = haproxy(model)
        if model.withHAProxy, let vip = model.vip {
            plays.append(
                Play("keepalived", on: model.pattern(model.balancerHosts), tags: ["keepalived", "load_balancing"]) {
                    host in
                    try KeepalivedRole(host: host, model: model, vip: vip).steps
                })
        }
        return plays
    }

    /// HAProxy on every balancer, routing to the members of the model (a reload: established connections stay).
    static func haproxy(_ model: ClusterModel) -> [Play] {
        guard model.withHAProxy else { return [] }
        return [
            Play("haproxy", on: model.pattern(model.balancerHosts), tags: ["haproxy", "load_balancing"]) { _ in
                HAProxyRole(model: model).steps
            }
        ]
    }
}
