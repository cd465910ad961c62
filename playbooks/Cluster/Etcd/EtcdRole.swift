import Keel

/// etcd 3.4 from Debian, configured as one cluster of the `etcd_cluster` hosts: with TLS, clients and peers both
/// prove themselves with a client certificate of the cluster's CA, which only Patroni's and etcd's own are.
struct EtcdRole: Role {
    let host: HostContext
    let model: ClusterModel

    static let packages = ["etcd-server", "etcd-client"]
    static let configuration = "/etc/default/etcd"

    /// What Keel leaves on an etcd host, which removing the cluster's etcd deletes: its data, configuration and
    /// certificates.
    static func footprint(_ model: ClusterModel) -> [String] {
        [
            EtcdBootstrap.dataDirectory, configuration, EtcdBootstrap.file, EtcdBootstrap.dropIn.path,
            TLSFiles.etcd.directory, EtcdRemovalMarked.path(model),
        ]
    }

    var steps: [Step] {
        let restart = EtcdPlays.rollingRestart(model, host: host.name).handler
        Package(Self.packages)
        EtcdStandaloneReset()
        if model.etcdTLS, let tls = model.tls, let issued = tls.issued(.etcd, on: host.name) {
            TLSFilesRole(files: .etcd, authority: tls.authority, issued: issued, handlers: [restart]).steps
        }
        Template(
            "cluster/etcd/etcd.conf", to: Self.configuration,
            values: [
                "member": .string(host.name), "address": .string(model.address(of: host.name)),
                "scheme": .string(model.etcdScheme), "client_port": .int(ClusterPorts.etcdClient),
                "peer_port": .int(ClusterPorts.etcdPeer), "cluster": .string(model.name), "tls": .bool(model.etcdTLS),
                "authority": .string(TLSFiles.etcd.authority), "certificate": .string(TLSFiles.etcd.certificate),
                "key": .string(TLSFiles.etcd.key),
            ]
        ).onChange(restart)
        Directory("/etc/systemd/system/etcd.service.d")
        File(EtcdBootstrap.dropIn.path, content: EtcdBootstrap.dropIn.content)
            .onChange(.run(name: "reload systemd units", command: "systemctl daemon-reload"))
        EtcdBootstrap(model: model, host: host.name)
        // A member that runs is marked for the rolling restart now; one that does not starts with the new files.
        FlushHandlers()
        // Members block in start-up until a quorum is up, so the first one must not wait for the others.
        Command(
            "systemctl enable etcd && systemctl start --no-block etcd", what: "etcd enabled and started",
            unless: "systemctl is-enabled -q etcd && systemctl is-active etcd | grep -qx -e active -e activating")
        WaitFor(
            .command(Etcdctl(model, member: model.address(of: host.name)).health, what: "etcd healthy"),
            timeout: .seconds(120))
    }
}
