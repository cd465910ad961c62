import Keel

/// A member that left, forgotten by the cluster: its key gone from the DCS and its replication slot dropped on the
/// primary (Patroni 4 would keep it, holding WAL, for `member_slots_ttl`). Runs on every remaining member; only
/// the primary holds the slot.
struct MemberForgotten: Resource {
    let model: ClusterModel
    let member: String

    private var key: String { model.dcsPrefix + "members/" + member }
    private var slot: String { ClusterModel.slotName(of: member) }
    private var slotQuery: String {
        "runuser -u postgres -- psql -XAtq -p \(model.postgresPort) -c "
            + shellQuote(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '\(slot)' AND NOT pg_is_in_recovery()")
    }

    var description: String { "\(member) forgotten: no DCS member key, no replication slot" }

    var probe: String {
        "echo key=$(" + Etcdctl(model, client: .patroni)("get --keys-only \(shellQuote(key))")
            + " 2>/dev/null | grep -c .)"
            + "; echo slot=$(\(slotQuery) 2>/dev/null)"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        var changes: [Change] = []
        if let count = output.fields["key"], count != "0", !count.isEmpty {
            changes.append(
                Change(
                    "delete \(key) from etcd",
                    .shell(Etcdctl(model, client: .patroni)("del \(shellQuote(key))") + " >/dev/null")))
        }
        if output.fields["slot"] == "1" {
            let drop =
                "SELECT pg_drop_replication_slot('\(slot)') FROM pg_replication_slots WHERE slot_name = '\(slot)' AND NOT active"
            changes.append(
                Change(
                    "drop the replication slot \(slot)",
                    .shell(
                        "runuser -u postgres -- psql -XAtq -p \(model.postgresPort) -c \(shellQuote(drop)) >/dev/null"))
            )
        }
        return changes
    }
}
