import Keel

/// A member that left, forgotten by the DCS: its key deleted (a clean stop deletes it too; a stop that could not
/// reach etcd leaves it until its ttl). Its replication slot is Patroni's: Patroni 4 keeps it, holding WAL, for
/// `member_slots_ttl` (30 minutes) after the member goes, then drops it; dropping it sooner would only see Patroni
/// create it again.
struct MemberForgotten: Resource {
    let model: ClusterModel
    let member: String

    private var key: String { model.dcsPrefix + "members/" + member }

    var description: String { "\(member) forgotten: no DCS member key" }

    var probe: String {
        Etcdctl(model, client: .patroni)("get --keys-only \(shellQuote(key))") + " 2>/dev/null | grep -c . || true"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard let count = Int(output.text), count > 0 else { return [] }
        return [
            Change(
                "delete \(key) from etcd",
                .shell(Etcdctl(model, client: .patroni)("del \(shellQuote(key))") + " >/dev/null"))
        ]
    }
}
