import Keel

/// The plays of the etcd tier.
enum EtcdPlays {
    /// etcd on the `etcd_cluster` hosts, healthy before Patroni needs it.
    static func cluster(_ model: ClusterModel) -> Play {
        Play("etcd", on: "etcd_cluster", tags: ["etcd"]) { host in
            EtcdRole(host: host, model: model).steps
        }
    }

    /// New members join the running etcd cluster one at a time, each healthy before the next is added: quorum
    /// holds at every step.
    static func joins(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("etcd members joining", on: model.pattern(hosts), serial: 1, anyErrorsFatal: true, tags: ["etcd"]) {
            host in
            EtcdRole(host: host, model: model).steps
        }
    }

    /// Members whose configuration or certificate changed restart one at a time, each healthy before the next:
    /// the cluster keeps its quorum, and Patroni its DCS.
    static func restarts(_ model: ClusterModel) -> Play {
        Play("etcd restarts", on: "etcd_cluster", serial: 1, anyErrorsFatal: true, tags: ["etcd"]) { host in
            rollingRestart(model, host: host.name).due
        }
    }

    static func rollingRestart(_ model: ClusterModel, host: String) -> RollingRestart {
        RollingRestart(
            "etcd", command: "systemctl restart etcd",
            ready: Poll(
                until: "\(Etcdctl(model, member: model.address(of: host)).health) >/dev/null 2>&1", seconds: 60,
                onTimeout: .fail("etcd is not healthy after 60 s")
            ).command)
    }

    /// etcd removed with the cluster: every member marked before any stops (a rerun then removes etcd without
    /// asking it), then stopped for good; its files go with the cluster's (``EtcdRole/footprint(_:)``).
    static func retired(_ model: ClusterModel) -> [Play] {
        [
            Play("etcd marked for removal", on: model.pattern(model.etcdHosts)) { _ in
                EtcdRemovalMarked(model: model)
            },
            Play("etcd stopped", on: model.pattern(model.etcdHosts)) { _ in
                Service("etcd", state: .stopped, enabled: false)
            },
        ]
    }

    /// The members `leaving` removed from etcd by a remaining one, then stopped with their data cleared: that data
    /// would make one refuse to join again ("member removed"), so it starts afresh when added back.
    static func left(_ model: ClusterModel, leaving: [String]) -> [Play] {
        let remaining = model.without(leaving)
        return [
            Play("etcd members leaving", on: model.pattern(leaving.isEmpty ? [] : [remaining.etcdHosts[0]])) { _ in
                for member in leaving { EtcdMemberRemoval(model: model, member: member) }
            },
            Play("etcd stopped", on: model.pattern(leaving), tags: ["etcd"]) { _ in
                Service("etcd", state: .stopped, enabled: false)
                Command(
                    "rm -rf \(EtcdBootstrap.dataDirectory) \(EtcdBootstrap.file)", what: "etcd's data deleted",
                    unless: "[ ! -e \(EtcdBootstrap.dataDirectory) ] && [ ! -e \(EtcdBootstrap.file) ]")
            },
        ]
    }
}
