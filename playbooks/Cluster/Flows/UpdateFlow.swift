import Foundation
import Keel

/// The rolling minor update: every package of the cluster's that apt has a newer release of (on the line the
/// inventory pins: PostgreSQL stays on its major), one host at a time, each back in service before the next.
/// Replicas first, each drained (``MemberDrain``), stopped after a CHECKPOINT, updated, started and caught up;
/// then one switchover to an updated replica and the former leader the same way; then the other hosts (a
/// balancer with its VIP moved away first, the VIP's holder last so that the VIP moves once, etcd with quorum
/// checked before each member stops). Planned from the
/// hosts: those already current are not touched, and a host an update killed earlier left out of service is
/// brought back first. Run again, it finds every package current and changes nothing.
public struct UpdateFlow: ClusterFlow, Sendable {
    public static let name = UpdateJournal.flow
    public static let summary =
        "Update the cluster's packages to their newest release, one host at a time, the leader after a switchover."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    /// The hosts to update one at a time (pgBackRest aside), and those an earlier update left out of service.
    public let hosts: [UpdateSurvey.Host]
    /// pgBackRest's update on each host that has it, all at once before the rolling part.
    public let backupUpdates: [String: PackageUpdate]
    public let leader: String
    /// The run's id in the hosts' journals.
    let id: String
    private let members: Set<String>
    /// The balancers holding the VIP when the update was planned: updated last of all.
    private let vipHolders: Set<String>

    /// The update of `hosts` (``UpdateSurvey``) on the cluster `status` shows.
    /// - Throws: ``FlowError`` when the cluster is not healthy, unless a killed update left one of its hosts out
    ///   of service (which this run brings back first), or has no leader.
    public init(hosts: [UpdateSurvey.Host], status: ClusterStatus, model: ClusterModel) throws(FlowError) {
        // A host an earlier update left out of service is brought back first, however it stands now.
        let unfinished = Set(hosts.filter(\.unfinished).map(\.name))
        try status.refuseUnlessHealthy(
            model, excusing: unfinished, because: "an update takes one host at a time out of a healthy cluster")
        let leader = try status.leader()
        try status.refuseLagging(model, excusing: unfinished)
        // pgBackRest talks only to its own version: members and repository host change it together, first.
        let isBackup = { (update: PackageUpdate) in PgBackRestDatabaseRole.packages.contains(update.name) }
        var backup: [String: PackageUpdate] = [:]
        for host in hosts { for update in host.updates where isBackup(update) { backup[host.name] = update } }
        let carrying = model.allHosts.filter { !UpdatedComponent.pgbackrest.packages(on: $0, model).isEmpty }
        if !backup.isEmpty, Set(backup.keys) != Set(carrying) || Set(backup.values.map(\.candidate)).count > 1 {
            throw FlowError(
                "pgBackRest would end on different versions: "
                    + carrying.map { "\($0) \(backup[$0].map { "→ \($0.candidate)" } ?? "unchanged")" }
                    .joined(separator: ", "),
                hint:
                    "the members and the repository host must run one version; give them the same apt sources, or "
                    + "update without it (--only …); nothing was changed")
        }
        self.backupUpdates = backup
        self.hosts = hosts.compactMap { host in
            let rest = host.updates.filter { !isBackup($0) }
            return rest.isEmpty && !host.unfinished
                ? nil : UpdateSurvey.Host(name: host.name, updates: rest, unfinished: host.unfinished)
        }
        self.leader = leader
        id = "update of \(model.name), planned \(Date.now.formatted(.iso8601))"
        members = Set(model.databaseHosts)
        vipHolders = Set(status.vipHolders)
    }

    /// The update planned from what the hosts and the running cluster say now (``UpdateSurvey``), of the components
    /// `only` names (all by default; postgresql_cluster's `target` variable narrows them as well).
    public static func planned(only: [UpdatedComponent], model: ClusterModel, inventory: Inventory, fleet: Fleet)
        async throws -> UpdateFlow
    {
        let components = try UpdatedComponent.chosen(
            only: only, target: model.databaseHosts.first.flatMap { inventory.variables(for: $0)["target"] })
        let hosts = try await UpdateSurvey.read(model, components: components, inventory: inventory, fleet: fleet)
        let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
        return try UpdateFlow(hosts: hosts, status: status, model: model)
    }

    /// The hosts in the order they are updated: those left out of service first, the replicas, the leader, the
    /// hosts that are not members, and the VIP's holder last (its VIP moves to an updated balancer, and stays).
    var order: [UpdateSurvey.Host] {
        func rank(_ host: UpdateSurvey.Host) -> Int {
            if host.unfinished { return 0 }
            if host.name == leader { return 2 }
            return members.contains(host.name) ? 1 : vipHolders.contains(host.name) ? 4 : 3
        }
        return hosts.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }

    /// Whether `host` is the leader and hands its role over before its update: when the update interrupts its
    /// clients, unless it is the only member (then writes stop while it updates).
    private func handsOver(_ host: UpdateSurvey.Host, _ model: ClusterModel) -> Bool {
        host.name == leader && members.count > 1 && UpdatePlays.interruptsClients(model, host)
    }

    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        HostReadiness(hosts: model.allHosts, members: model.databaseHosts)
    }

    public func plan(_ model: ClusterModel) -> String? {
        guard !hosts.isEmpty || !backupUpdates.isEmpty else {
            return "update: every package of cluster \(model.name) is current, nothing to do\n"
        }
        var lines = ["update will, on cluster \(model.name):"]
        if let update = backupUpdates.values.first {
            lines.append(
                "  at once on \(backupUpdates.keys.sorted().joined(separator: ", ")) (one version on every host): "
                    + "\(update.name) → \(update.candidate)")
        }
        if !hosts.isEmpty {
            lines.append(backupUpdates.isEmpty ? "  one host at a time:" : "  then one host at a time:")
        }
        for host in order {
            if handsOver(host, model) {
                lines.append("    hand the leader's role from \(leader) to an updated replica")
            }
            let what =
                host.updates.isEmpty
                ? "bring it back into service (an earlier update stopped there)"
                : host.updates.map(\.description).joined(separator: ", ")
            lines.append("    \(host.name): \(what)")
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            if !backupUpdates.isEmpty { UpdatePlays.backupUpdated(model, backupUpdates) }
            for host in order {
                if handsOver(host, model) { PatroniPlays.switchover(model, from: leader, to: nil) }
                UpdatePlays.updated(model, host: host, run: id)
            }
        }
        .stoppingAtFirstFailure()
    }
}
