import Keel

/// The plays of the balancers: HAProxy in front of the members and keepalived holding the VIP.
enum BalancerPlays {
    /// HAProxy, then keepalived with the VIP, on the `[balancers]` hosts when the inventory asks for HAProxy.
    static func balancers(_ model: ClusterModel) -> [Play] {
        haproxy(model) + keepalived(model)
    }

    /// HAProxy on every balancer (or on `hosts`), routing to the members of the model (a reload: established
    /// connections stay).
    static func haproxy(_ model: ClusterModel, on hosts: [String]? = nil) -> [Play] {
        guard let haproxy = model.haproxy else { return [] }
        return [
            Play("haproxy", on: model.pattern(hosts ?? model.balancerHosts), tags: ["haproxy", "load_balancing"]) {
                host in
                HAProxyRole(model: model, haproxy: haproxy, host: host.name).steps
            }
        ]
    }

    /// HAProxy configured on every balancer before Patroni is (deploy): a running cluster's members then ask
    /// HAProxy's checks for the certificate they already present, so that no member is checked down meanwhile. It
    /// does not wait for the leader, which a new cluster does not have yet.
    static func haproxyBeforePatroni(_ model: ClusterModel) -> [Play] {
        guard let haproxy = model.haproxy else { return [] }
        return [
            Play("haproxy before patroni", on: model.pattern(model.balancerHosts), tags: ["haproxy", "load_balancing"])
            { host in
                HAProxyRole(model: model, haproxy: haproxy, host: host.name, awaitsLeader: false).steps
            }
        ]
    }

    /// keepalived on every balancer: configurations written, backups with a new one stopped, the VIP holder
    /// reloaded, then every balancer started one at a time, each hearing the holder (see ``KeepalivedReload``).
    static func keepalived(_ model: ClusterModel) -> [Play] {
        guard model.haproxy != nil, let vip = model.vip else { return [] }
        let balancers = model.pattern(model.balancerHosts)
        let tags: Set<String> = ["keepalived", "load_balancing"]
        return [
            Play("keepalived configuration", on: balancers, tags: tags) { host in
                try KeepalivedRole(host: host, model: model, vip: vip).steps
            },
            Play("keepalived backups", on: balancers, serial: 1, tags: tags) { _ in
                KeepalivedReload(vip: vip, stage: .backups)
            },
            Play("keepalived VIP holder", on: balancers, tags: tags) { _ in
                KeepalivedReload(vip: vip, stage: .holder)
            },
            Play("keepalived", on: balancers, serial: 1, tags: tags) { _ in
                Service("keepalived", state: .started, enabled: true)
                // One of the balancers claims the VIP a few VRRP adverts after keepalived starts.
                WaitFor(.command(vip.answers, what: "the VIP to answer"), timeout: .seconds(60))
            },
        ]
    }

    /// New balancers (`hosts`) route to a replica before keepalived may give them the VIP (add-balancer).
    static func routingToReplicas(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("haproxy routes to replicas", on: model.pattern(hosts), tags: ["haproxy", "load_balancing"]) { _ in
            HAProxyRole.routes(to: "replicas")
        }
    }

    /// Leaving balancers give the VIP up, one at a time so that two of them never hand it to each other, each
    /// waiting until another holds it (remove-balancer).
    static func vipHandedOver(_ model: ClusterModel, leaving hosts: [String]) -> Play {
        Play("VIP handed over", on: model.pattern(hosts), serial: 1, tags: ["keepalived", "load_balancing"]) { _ in
            Service("keepalived", state: .stopped, enabled: false)
            if let vip = model.vip {
                WaitFor(.command(vip.answers, what: "the VIP to answer"), timeout: .seconds(30))
            }
        }
    }

    /// HAProxy, and the balancer's PgBouncer, stopped for good on the leaving balancers, once the VIP is elsewhere
    /// (remove-balancer).
    static func haproxyStopped(_ model: ClusterModel, leaving hosts: [String]) -> Play {
        Play("haproxy stopped", on: model.pattern(hosts), tags: ["haproxy", "load_balancing"]) { host in
            if model.balancerPoolers.contains(host.name) { Service("pgbouncer", state: .stopped, enabled: false) }
            Service("haproxy", state: .stopped, enabled: false)
        }
    }

    /// The balancers give the VIP up and stop routing, for good (remove-cluster).
    static func stopped(_ model: ClusterModel) -> Play {
        Play("balancers stopped", on: model.pattern(model.balancerHosts)) { host in
            Service("keepalived", state: .stopped, enabled: false)
            if model.balancerPoolers.contains(host.name) { Service("pgbouncer", state: .stopped, enabled: false) }
            Service("haproxy", state: .stopped, enabled: false)
        }
    }
}
