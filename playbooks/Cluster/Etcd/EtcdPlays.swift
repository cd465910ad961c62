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
            ).description)
    }
}
