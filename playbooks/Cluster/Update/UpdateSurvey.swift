import Keel

/// What `keel update` reads before it plans: on every host, apt's lists refreshed and the cluster's packages that
/// have a newer version (``PackageUpdate``), and whether an update killed earlier left the host drained
/// (an unfinished update in its journal, ``JournalRecord``); then the running cluster.
public enum UpdateSurvey {
    /// One host's part of the plan.
    public struct Host: Sendable, Equatable {
        public let name: String
        public let updates: [PackageUpdate]
        /// An earlier update stopped on this host before it was back in service.
        public let unfinished: Bool
    }

    /// Every host with an update or left unfinished, in inventory order.
    /// - Throws: ``FlowError`` when a host cannot be read.
    public static func read(
        _ model: ClusterModel, components: [UpdatedComponent], inventory: Inventory, fleet: Fleet
    ) async throws -> [Host] {
        let hosts = model.allHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { target, transport in
            let names = components.flatMap { $0.packages(on: target.name, model) }
            let become = target.privileged
            let journal = try await transport.run(JournalRecord.readAll, become: become, timeout: .seconds(10))
            let unfinished = UpdateJournal.leftUnfinished(journal.stdoutText)
            guard !names.isEmpty else { return (unfinished, "") }
            let read = try await transport.run(PackageUpdate.read(names), become: become, timeout: .seconds(700))
            guard read.succeeded else {
                throw FlowError(
                    "apt could not read its package lists on \(target.name): \(read.stderrText.suffix(300))",
                    hint: "see apt-get update there; nothing was changed")
            }
            return (unfinished, read.stdoutText)
        }
        var plan: [Host] = []
        for (host, outcome) in zip(hosts, outcomes) {
            switch outcome {
            case .done(let (unfinished, text), _):
                let updates = PackageUpdate.parse(text)
                var seen: Set<String> = []
                let unique = updates.filter { seen.insert($0.name).inserted }
                if unfinished || !unique.isEmpty {
                    plan.append(Host(name: host, updates: unique, unfinished: unfinished))
                }
            case .unreachable(let error), .failed(let error):
                throw FlowError("\(host) could not be read: \(error)", hint: "nothing was changed")
            }
        }
        return plan
    }
}
