import Keel

/// Before the first change on an etcd host: an etcd already serving a cluster there speaks what the model asks
/// (TLS or plain HTTP between members), since its members cannot switch in place without losing quorum.
struct EtcdPreflight: PreflightCheck {
    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        guard model.etcdHosts.contains(host) else { return "" }
        return
            "[ -d /var/lib/etcd/default/member ] && sed -n 's/^ETCD_LISTEN_PEER_URLS=\"\\([a-z]*\\):.*/etcd_peers=\\1/p' \(EtcdRole.configuration)"
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        guard let peers = found.value("etcd_peers"), peers != model.etcdScheme else { return [] }
        return [
            "etcd here already serves a cluster whose members talk \(peers == "https" ? "TLS" : "plain HTTP"); "
                + "they cannot switch in place without losing quorum: set etcd_tls_enable: "
                + "\(peers == "https") to keep it as it is"
        ]
    }
}
