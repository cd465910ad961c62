import Keel

/// The plays of the etcd tier.
enum EtcdPlays {
    /// etcd on the `etcd_cluster` hosts, healthy before Patroni needs it.
    static func cluster(_ model: ClusterModel) -> Play {
        Play("etcd", on: "etcd_cluster", tags: ["etcd"]) { host in
            EtcdRole(host: host, model: model).steps
        }
    }
}
