import Keel
import KeelSSH

/// Where a member being replaced is remembered between ``OldPatroniStop`` and ``ReplacedPatroniStart``.
private let replacingMark = "/etc/patroni/.keel-replacing"

/// Debian's older Patroni, still running on this member (`keel_upgrade_patroni`): stopped and its package removed,
/// before Keel's files for it are written. PostgreSQL shuts down cleanly, sending every WAL record to the streaming
/// replicas first; if it led, a replica takes over. The play goes one member at a time, so the cluster keeps a
/// leader throughout.
struct OldPatroniStop: Resource {
    var description: String { "Debian's Patroni replaced" }
    var affectsOtherResources: Bool { true }

    var probe: String {
        "dpkg-query -W -f '${db:Status-Abbrev}' patroni 2>/dev/null | grep -q '^ii' && systemctl is-active -q patroni && echo running || echo absent"
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "running" else { return [] }
        return [Change("stop Debian's Patroni (PostgreSQL stops cleanly; a replica takes over if it led) and remove its package", commands: [
            "mkdir -p /etc/patroni && touch \(replacingMark)",
            "systemctl stop patroni",
            "DEBIAN_FRONTEND=noninteractive timeout 300 apt-get remove -y -q -o DPkg::Lock::Timeout=300 patroni",
        ])]
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws { try await host.run(changes) }
}

/// Keel's Patroni started on the data the old one managed, once its files are in place, and back in service (a
/// streaming replica, or the leader) before the next member is replaced.
struct ReplacedPatroniStart: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "Keel's Patroni started in place of Debian's" }
    var affectsOtherResources: Bool { true }
    var probe: String { "[ -e \(replacingMark) ] && echo replacing || echo none" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "replacing" else { return [] }
        let api = PatroniAPI(model, member: host)
        return [Change("start Patroni \(model.patroniVersion) on this member's data and wait until it is in service", commands: [
            "systemctl daemon-reload && systemctl enable -q patroni && systemctl start patroni",
            "for i in $(seq 300); do \(api.inService) && exit 0; sleep 1; done; echo 'the member is not in service after 300 s' >&2; exit 1",
            "rm -f \(replacingMark)",
        ])]
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws { try await host.run(changes) }
}
