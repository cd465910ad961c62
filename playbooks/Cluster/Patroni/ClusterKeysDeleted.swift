import Keel

/// The cluster's keys gone from etcd: its prefix with the trailing slash, so that a cluster whose name starts with
/// this one's keeps its keys. Read and deleted through the etcd member on this host; where etcd's data is already
/// gone or marked for removal (which comes after this), so are the keys.
struct ClusterKeysDeleted: Resource {
    let model: ClusterModel

    var description: String { "etcd keys under \(model.dcsPrefix)" }

    private var etcdctl: Etcdctl { Etcdctl(model, member: model.address(of: model.etcdHosts[0])) }

    var probe: String {
        let probe: ShellCommand =
            "[ -d \(EtcdBootstrap.dataDirectory) ] && [ ! -e \(EtcdRemovalMarked.path(model)) ] "
            + "|| { echo keys=0; exit 0; }; "
            + "k=$(\(etcdctl("get --prefix --keys-only \(model.dcsPrefix)"))) || exit 0; "
            + "echo \"keys=$(printf '%s\\n' \"$k\" | grep -c .)\""
        return probe.text
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let keys = output.fields["keys"].flatMap(Int.init) else {
            throw ResourceError("etcd on \(host.name) did not list the keys under \(model.dcsPrefix): \(output.text)")
        }
        guard keys > 0 else { return [] }
        return [
            Change(
                "delete \(keys) key(s) under \(model.dcsPrefix)",
                .shell(etcdctl("del --prefix \(model.dcsPrefix)") + " >/dev/null"))
        ]
    }
}
