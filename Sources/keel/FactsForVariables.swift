import Keel

extension ConnectionArguments {
    /// `inventory` with the facts of every host that Jinja in its variables refers to (Ansible's `gather_facts`),
    /// read from the hosts in one round trip each (through `connector`, by default a connection of their own),
    /// and those facts, for the run not to read them again; unchanged, and none, when no variable refers to a fact.
    func addingFacts(to inventory: Inventory, connector: HostConnector? = nil) async throws -> (
        Inventory, [String: Facts]
    ) {
        let referred = inventory.factsReferred(among: Facts.ansibleNames)
        guard !referred.isEmpty else { return (inventory, [:]) }
        let hosts = try targets(of: inventory, inventory.hostNames)
        let fleet = Fleet(forks: forks, connector: try connector ?? options(for: hosts).connector)
        let outcomes = await fleet.run(hosts) { _, transport in
            try await Facts.gather(through: transport)
        }
        var facts: [String: Facts] = [:]
        for (host, outcome) in zip(hosts, outcomes) {
            switch outcome {
            case .done(let found, _): facts[host.name] = found
            case .unreachable(let error), .failed(let error):
                throw CLIError(
                    "the variables refer to facts of the hosts (\(referred.joined(separator: ", "))), and \(host.name) "
                        + "could not be read: \(error)")
            }
        }
        return (inventory.adding(facts: facts.mapValues(\.ansibleVariables)), facts)
    }
}
