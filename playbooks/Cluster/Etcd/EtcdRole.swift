import Keel

/// etcd 3.4 from Debian, configured as one cluster of the `etcd_cluster` hosts.
struct EtcdRole: Role {
    let host: HostContext
    let model: ClusterModel

    var steps: [Step] {
        Package("etcd-server", "etcd-client")
        EtcdStandaloneReset()
        Template(
            "cluster/etcd/etcd.conf", to: "/etc/default/etcd",
            values: [
                "member": .string(host.name), "address": .string(model.address(of: host.name)),
                "initial_cluster": .string(model.etcdInitialCluster), "cluster": .string(model.name),
            ]
        ).onChange(.restart("etcd"))
        // Members block in start-up until a quorum is up, so the first one must not wait for the others.
        Command(
            "systemctl enable etcd && systemctl start --no-block etcd",
            unless: "systemctl is-enabled -q etcd && systemctl is-active etcd | grep -qx -e active -e activating")
        WaitFor(.command(Etcdctl(member: model.address(of: host.name)).health()), timeout: .seconds(120))
    }
}
