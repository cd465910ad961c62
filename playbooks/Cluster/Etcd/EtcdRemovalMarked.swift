import Keel

/// etcd marked, while its data is still there, as being removed with the cluster: written on every member before
/// any stops, so that a rerun of a removal killed after etcd stopped knows why etcd no longer answers (the decision
/// was made while it did) instead of refusing. The mark goes with etcd's files.
struct EtcdRemovalMarked: Resource {
    let model: ClusterModel

    /// The mark's path on each etcd host.
    static func path(_ model: ClusterModel) -> String { "/var/lib/etcd/keel-removing-\(model.name)" }

    var description: String { "etcd marked for removal with cluster \(model.name)" }

    var probe: String {
        "[ -d \(EtcdBootstrap.dataDirectory) ] && echo data=yes; [ -e \(shellQuote(Self.path(model))) ] && echo mark=yes; true"
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.fields["data"] == "yes", output.fields["mark"] != "yes" else { return [] }
        let text = "# Keel: removing cluster \(model.name) removes this etcd."
        return [
            Change(
                "mark", .shell(PathController.run("printf '%s\\n' \(text) > \(Self.path(model))", as: "etcd")))
        ]
    }
}
