import Keel

/// Debian's etcd package starts a standalone member at once; its data would make it refuse to join the cluster.
/// Cleared once, before the first cluster configuration, and only when it is that empty standalone member
/// (alone, its peer URL on localhost, no keys): an etcd that already serves a cluster keeps its data. A marker
/// keeps later runs from looking again.
struct EtcdStandaloneReset: Resource {
    static let marker = "/var/lib/etcd/.keel-cluster"

    var description: String { "Debian's standalone etcd member cleared once, when empty" }
    var affectsOtherResources: Bool { true }
    var probe: String { "[ -e \(Self.marker) ] && echo done || echo pending" }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text != "done" else { return [] }
        let local = Etcdctl.debianDefault
        let standalone =
            "[ \"$(\(local("member list")) 2>/dev/null | cut -d, -f4 | tr -d ' ')\" = http://localhost:\(ClusterPorts.etcdPeer) ] "
            // A failed read (a timeout, auth) is not an empty store: the data stays.
            + "&& keys=$(\(local("get '' --prefix --keys-only --limit=1"))) && [ -z \"$keys\" ]"
        return [
            Change(
                "clear Debian's standalone member if it is empty, then mark the host",
                .shell(
                    "systemctl start etcd; if \(raw: standalone); then systemctl stop etcd && rm -rf /var/lib/etcd/default; fi && touch \(Self.marker)"
                ))
        ]
    }
}
