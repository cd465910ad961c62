import Keel

/// Debian's older Patroni, still running on this member (`keel_upgrade_patroni`): stopped before its package is
/// removed (the next step) and Keel's files are written; ``PatroniRestarts/replacing(_:host:)`` starts Keel's
/// afterwards.
/// PostgreSQL shuts down cleanly, sending every WAL record to the streaming replicas first; if it led, a replica
/// takes over. The play goes one member at a time, so the cluster keeps a leader throughout.
struct OldPatroniStop: Resource {
    var description: String { "Debian's older Patroni, stopped if it runs" }
    var affectsOtherResources: Bool { true }

    var probe: String {
        "dpkg-query -W -f '${db:Status-Abbrev}' patroni 2>/dev/null | grep -q '^ii' && systemctl is-active -q patroni && echo running || echo absent"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "running" else { return [] }
        return [
            Change(
                "stop Debian's Patroni (PostgreSQL stops cleanly; a replica takes over if it led)",
                .shell("mkdir -p /etc/patroni && touch \(PatroniRestarts.replacingMark)"),
                .shell("systemctl stop patroni"))
        ]
    }
}
