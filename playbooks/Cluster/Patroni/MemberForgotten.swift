import Keel

/// A member that left, forgotten by the DCS: its key deleted (a clean stop deletes it too; a stop that could not
/// reach etcd leaves it until its ttl); its replication slots go next (see ``MemberSlotDropped``).
struct MemberForgotten: Resource {
    let model: ClusterModel
    let member: String

    private var key: String { model.dcsPrefix + "members/" + member }

    var description: String { "\(member) forgotten: no DCS member key" }

    var probe: String {
        (Etcdctl(model, client: .patroni)("get --keys-only \(key)") + " 2>/dev/null | grep -c . || true").text
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard let count = Int(output.text), count > 0 else { return [] }
        return [
            Change(
                "delete \(key) from etcd",
                .shell(Etcdctl(model, client: .patroni)("del \(key)") + " >/dev/null"))
        ]
    }
}
