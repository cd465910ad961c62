import Keel

/// A member that left no longer has a replication slot on this host. Patroni keeps a departed member's slot, and
/// the WAL it holds, for `member_slots_ttl`, and would create again a slot dropped behind its back: so the retention
/// drops to 0 until Patroni has dropped the slot here, then returns to the model's. Run one host at a time, so that
/// no host restores the retention while another still waits for its slot to go.
struct MemberSlotDropped: Resource {
    let model: ClusterModel
    let member: String

    /// How long Patroni gets to drop the slot: a few of its cycles.
    private var patience: Int { 3 * model.patroni.loopWait + 5 }

    var description: String { "\(member) has no replication slot" }

    /// Patroni's name for a member's slot: the name in lower case, other characters than `[a-z0-9_]` as `_`.
    static func slotName(of member: String) -> String {
        String(
            member.lowercased().unicodeScalars.prefix(63).map {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_"
            })
    }

    private var count: ShellCommand {
        model.postgres.run(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '\(Self.slotName(of: member))'")
    }

    var probe: String { count.text }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard let slots = Int(output.text) else {
            throw ResourceError("PostgreSQL on \(context.name) did not list its replication slots: \(output.text)")
        }
        guard slots > 0 else { return [] }
        let api = PatroniAPI(model, member: context.name)
        let slot = Self.slotName(of: member)
        let retention = { (ttl: JSONValue) in JSONValue.object(["member_slots_ttl": ttl]).json }
        let restored: String =
            "Patroni refused member_slots_ttl \(model.patroni.memberSlotsTTL); keel deploy sets it again"
        let kept: String = "Patroni kept slot \(slot) for \(patience) s"
        let dropped = Poll(until: "[ \"$(\(count))\" = 0 ]", seconds: patience, onTimeout: .proceed).command
        let command: ShellCommand =
            "\(api.send("PATCH", "/config", json: retention(.integer(0)), timeout: 30)) "
            + "|| { echo 'Patroni refused member_slots_ttl 0' >&2; exit 1; }; \(dropped); "
            + "\(api.send("PATCH", "/config", json: retention(.string(model.patroni.memberSlotsTTL)), timeout: 30)) "
            + "|| { echo \(restored) >&2; exit 1; }; [ \"$(\(count))\" = 0 ] || { echo \(kept) >&2; exit 1; }"
        return [
            Change("drop replication slot \(slot) (member_slots_ttl 0 until Patroni drops it)", .shell(command))
        ]
    }
}
