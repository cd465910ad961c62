import Foundation
import Keel

extension ClusterStatus {
    /// How long a host may take to connect before `keel status` calls it unreachable: it answers in seconds even
    /// with a host cut off.
    public static let connectTimeout: Duration = .seconds(3)

    /// Reads the running cluster over SSH, every host at once: each database host's own Patroni (so a member
    /// the DCS still lists but that no longer answers is seen, and each member's state is what it reports now),
    /// the members and etcd's health from the first that answers, the backups from the repository (on the
    /// repository host, or on that member for a shared repository), and which hosts hold the VIP. The verdict follows in ``problems``.
    /// - Throws: ``StatusError`` when no database host answers.
    public static func gather(
        _ model: ClusterModel, inventory: Inventory, fleet: Fleet
    ) async throws -> ClusterStatus {
        async let vipHolders = holders(of: model.vip, model: model, inventory: inventory, fleet: fleet)
        async let updatingElsewhere = unfinishedUpdates(
            on: model.allHosts.filter { !model.databaseHosts.contains($0) }, inventory: inventory, fleet: fleet)
        async let repository = repositoryBackups(model, inventory: inventory, fleet: fleet)
        let hosts = model.databaseHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { target, transport in
            try await read(model, host: target.name, transport: transport)
        }
        var status: ClusterStatus?
        var unconfirmed: [String: String] = [:]
        var ownStates: [String: String] = [:]
        // With a shared repository every member has the backup timers; the one that is the primary backs up.
        var runs: [BackupStatus.ScheduledRun] = []
        var updating: Set<String> = []
        var reached: [String] = []
        for (host, outcome) in zip(hosts, outcomes) {
            if case .unreachable = outcome {} else { reached.append(host) }
            switch outcome {
            case .done(let (read, ownState), _):
                if status == nil { status = read }
                if let reason = read.unconfirmed[host] { unconfirmed[host] = reason }
                ownStates[host] = ownState
                runs += read.backups?.runs ?? []
                updating.formUnion(read.updateUnfinished)
            case .unreachable(let error): unconfirmed[host] = "unreachable: \(error)"
            case .failed(let error): unconfirmed[host] = "\(error)"
            }
        }
        guard var status else {
            throw StatusError(
                description: "no member answered:\n"
                    + hosts.map { "\($0): \(unconfirmed[$0] ?? "no answer")" }.joined(separator: "\n"))
        }
        status.unconfirmed = unconfirmed
        await status.explainSilence(of: reached.filter { unconfirmed[$0] != nil }, inventory: inventory, fleet: fleet)
        for index in status.members.indices {
            if let state = ownStates[status.members[index].name] { status.members[index].state = state }
        }
        status.backups?.runs = runs
        status.updateUnfinished = updating.union(try await updatingElsewhere)
        status.vipHolders = try await vipHolders
        if let (backups, error) = await repository {
            status.backups = backups
            status.backupError = error
        }
        status.problems = status.findProblems(model)
        return status
    }

    /// Says why members that answer SSH but not as members are silent, when their host cannot take steps: a
    /// half-added member (Patroni not installed, dpkg interrupted) is named as such, with what to do.
    private mutating func explainSilence(of hosts: [String], inventory: Inventory, fleet: Fleet) async {
        guard !hosts.isEmpty else { return }
        let found = await HostReadiness(hosts: hosts, members: hosts).problems(inventory: inventory, fleet: fleet)
        for (host, problems) in found {
            if problems.contains(where: \.isUnreachable) { continue }
            unconfirmed[host] =
                problems.map(\.description).joined(separator: ", ") + ": " + HostReadiness.remedy(problems, on: [host])
        }
    }

    /// The hosts that hold `vip`, among those that may.
    private static func holders(of vip: VIP?, model: ClusterModel, inventory: Inventory, fleet: Fleet) async throws
        -> [String]
    {
        guard let vip else { return [] }
        let candidates = vip.candidates(in: model)
        let outcomes = await fleet.run(
            try candidates.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { _, transport in
            try await transport.run(holdsVIP(vip.address), timeout: .seconds(5)).succeeded
        }
        return zip(candidates, outcomes).filter { if case .done(true, _) = $0.1 { true } else { false } }.map(\.0)
    }

    /// The hosts among `hosts` (those without a member, which ``read(_:host:transport:)`` reads) that a killed
    /// `keel update` left out of service; a host that does not answer is left to the update's own survey.
    private static func unfinishedUpdates(on hosts: [String], inventory: Inventory, fleet: Fleet) async throws
        -> Set<String>
    {
        guard !hosts.isEmpty else { return [] }
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { _, transport in
            UpdateJournal.leftUnfinished(
                try await transport.run(JournalRecord.readAll, timeout: .seconds(5)).stdoutText)
        }
        return Set(zip(hosts, outcomes).filter { if case .done(true, _) = $0.1 { true } else { false } }.map(\.0))
    }

    /// The repository host's backups and the error reading them; nil without a repository host.
    private static func repositoryBackups(_ model: ClusterModel, inventory: Inventory, fleet: Fleet) async
        -> (BackupStatus?, String?)?
    {
        guard let backups = model.backups, let host = backups.repositoryHost else { return nil }
        do {
            let target = try inventory.target(for: host)
            switch await fleet.run(
                [target],
                { _, transport in
                    try await BackupStatus.read(backups, host: host, transport: transport)
                })[0]
            {
            case .done(let status, _): return (status, nil)
            case .unreachable(let error), .failed(let error): return (nil, "\(error)")
            }
        } catch {
            return (nil, "\(error)")
        }
    }
}

/// The cluster's status could not be read.
public struct StatusError: Error, CustomStringConvertible {
    public var description: String
}
