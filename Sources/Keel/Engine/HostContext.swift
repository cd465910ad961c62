/// Everything a play's body and its resources may read about one host while planning: its inventory
/// variables and groups, and the facts gathered from it. Never live state: that belongs in a resource's probe.
public struct HostContext: Sendable {
    public let name: String
    public let inventory: Inventory
    public let facts: Facts
    /// The facts of every host this run has reached (this one included), by name.
    public let peers: [String: Facts]
    /// Typed access to the host's resolved variables.
    public let variables: VariableReader

    /// Variables, facts and inventory structure as template values, built once per host and play.
    let templateValues: TemplateValues

    public init(name: String, inventory: Inventory, facts: Facts, peers: [String: Facts] = [:]) {
        self.name = name
        self.inventory = inventory
        self.facts = facts
        self.peers = peers
        self.variables = VariableReader(host: name, variables: inventory.variables(for: name))
        self.templateValues = TemplateValues(
            host: name, inventory: inventory, variables: variables.variables, facts: facts)
    }

    /// The groups the host belongs to.
    public var groups: [String] { inventory.groups(of: name) }

    /// Whether the host is in `group`.
    public func isMember(of group: String) -> Bool { inventory.hostNames(in: group).contains(name) }
}
