import Foundation

/// Hosts, groups and variables, read from an Ansible-style inventory (YAML or INI) and its `group_vars/` and
/// `host_vars/` folders.
///
/// Variables resolve as Ansible resolves them (lowest first): group variables written in the inventory, from
/// `all` down to the deepest group; then `group_vars/all`; then `group_vars/GROUP` in the same order; then the
/// host's own variables in the inventory; then `host_vars/HOST`; then the command line's (`-e`). A later value
/// replaces an earlier one whole. Facts gathered from a host (`ansible_memtotal_mb`), when Jinja in the variables
/// needs them, come below all of these.
public struct Inventory: Sendable {
    /// One machine as the inventory names it.
    public struct Host: Sendable {
        public var name: String
        public var variables: [String: Variable]
        public var location: SourceLocation
    }

    /// A named set of hosts and child groups, with variables for all of them.
    public struct Group: Sendable {
        public var name: String
        public var hosts: [String]
        public var children: [String]
        public var variables: [String: Variable]
        public var location: SourceLocation?
    }

    /// The inventory file.
    public let path: String
    /// Host names in the order they first appear.
    public let hostNames: [String]
    public let hosts: [String: Host]
    public let groups: [String: Group]
    /// Variables from `group_vars/`, by group.
    let groupVariableFiles: [String: [String: Variable]]
    /// Variables from `host_vars/`, by host.
    let hostVariableFiles: [String: [String: Variable]]
    /// Variables from the command line, over every other.
    public private(set) var extraVariables: [String: Variable] = [:]
    /// Facts gathered from each host under Ansible's names, below every other variable.
    public private(set) var hostFacts: [String: [String: InventoryValue]] = [:]
    /// Values every host has unless it sets them, below the facts, with where they come from.
    public private(set) var defaults: [String: Variable] = [:]

    /// Group names, `all` first, then by depth below `all` and by name.
    public let groupNames: [String]
    /// Each group's hosts, its descendants' included, in inventory order.
    private let members: [String: [String]]
    /// `members` as Ansible's `groups` variable shows it, the same for every host.
    private let groupsVariable: InventoryValue

    init(
        path: String, hostNames: [String], hosts: [String: Host], groups: [String: Group],
        groupVariableFiles: [String: [String: Variable]], hostVariableFiles: [String: [String: Variable]]
    ) {
        self.path = path
        self.hostNames = hostNames
        self.hosts = hosts
        self.groups = groups
        self.groupVariableFiles = groupVariableFiles
        self.hostVariableFiles = hostVariableFiles
        let depths = Dictionary(uniqueKeysWithValues: groups.keys.map { ($0, Self.depth(of: $0, in: groups)) })
        groupNames = groups.keys.sorted { (depths[$0]!, $0) < (depths[$1]!, $1) }
        let members = Dictionary(
            uniqueKeysWithValues: groups.keys.map { ($0, Self.members(of: $0, in: groups, hostNames: hostNames)) })
        self.members = members
        groupsVariable = .map(members.mapValues { .list($0.map { .string($0) }) })
    }

    /// Every group `host` belongs to, directly or through a parent, ordered as variables resolve (`all` first).
    public func groups(of host: String) -> [String] {
        groupNames.filter { hostNames(in: $0).contains(host) }
    }

    /// The hosts of `group` and of all its descendants, in inventory order.
    public func hostNames(in group: String) -> [String] { members[group] ?? [] }

    private static func members(of group: String, in groups: [String: Group], hostNames: [String]) -> [String] {
        if group == "all" { return hostNames }
        var found = Set<String>()
        var pending = [group]
        var seen = Set<String>()
        while let name = pending.popLast() {
            guard seen.insert(name).inserted, let current = groups[name] else { continue }
            found.formUnion(current.hosts)
            pending.append(contentsOf: current.children)
        }
        return hostNames.filter(found.contains)
    }

    /// The variables `host` sees, resolved in Ansible's order.
    public func variables(for host: String) -> [String: Variable] {
        let memberships = groups(of: host)
        var resolved = defaults
        // Facts are what the host reports, never Jinja to evaluate (Ansible marks them unsafe too): a hostname or
        // interface name holding `{{ … }}` is taken as it is.
        resolved.merge(
            (hostFacts[host] ?? [:]).mapValues {
                Variable(evaluated: $0, at: SourceLocation(file: "the facts of \(host)", line: 0))
            }
        ) { $1 }
        for group in memberships { resolved.merge(groups[group]?.variables ?? [:]) { $1 } }
        for group in memberships { resolved.merge(groupVariableFiles[group] ?? [:]) { $1 } }
        resolved.merge(hosts[host]?.variables ?? [:]) { $1 }
        resolved.merge(hostVariableFiles[host] ?? [:]) { $1 }
        resolved.merge(extraVariables) { $1 }
        let here = hosts[host]?.location ?? SourceLocation(file: path, line: 0)
        resolved["inventory_hostname"] = Variable(.string(host), at: here)
        resolved["group_names"] = Variable(.list(memberships.filter { $0 != "all" }.map { .string($0) }), at: here)
        resolved["groups"] = Variable(groupsVariable, at: SourceLocation(file: path, line: 0))
        return resolved
    }

    /// The variables Ansible sets for every host itself (its name, its groups, every group's hosts): Jinja may
    /// refer to them; they are not settings.
    public static let magicVariables: Set<String> = ["inventory_hostname", "group_names", "groups"]

    /// The inventory with `variables` over every other (later calls win).
    public func adding(extraVariables variables: [String: Variable]) -> Inventory {
        var inventory = self
        inventory.extraVariables.merge(variables) { $1 }
        return inventory
    }

    /// The inventory with each host's facts (by host name) below its variables.
    public func adding(facts: [String: [String: InventoryValue]]) -> Inventory {
        var inventory = self
        inventory.hostFacts.merge(facts) { $1 }
        return inventory
    }

    /// The inventory with `variables` as every host's values unless it sets them.
    public func adding(defaults variables: [String: Variable]) -> Inventory {
        var inventory = self
        inventory.defaults.merge(variables) { $1 }
        return inventory
    }

    /// The facts (of `names`) that Jinja anywhere in the variables refers to; Keel gathers them before it reads
    /// the variables.
    public func factsReferred(among names: some Sequence<String>) -> [String] {
        var texts: [String] = []
        func collect(_ value: InventoryValue) {
            switch value {
            case .string(let text) where JinjaTemplate.isTemplate(text): texts.append(text)
            case .list(let items): items.forEach(collect)
            case .map(let entries): entries.values.forEach(collect)
            default: break
            }
        }
        let sources =
            groups.values.map(\.variables) + Array(groupVariableFiles.values) + hosts.values.map(\.variables)
            + Array(hostVariableFiles.values) + [extraVariables]
        for variables in sources {
            for variable in variables.values where variable.holdsTemplate { collect(variable.value) }
        }
        return names.filter { name in texts.contains { $0.contains(name) } }.sorted()
    }

    /// The hosts a `--limit` style pattern selects, in inventory order.
    public func select(_ pattern: String) throws(InventoryError) -> [String] {
        try HostPattern(pattern).resolve(in: self)
    }

    /// The longest path from `all` to `group`.
    private static func depth(of group: String, in groups: [String: Group]) -> Int {
        if group == "all" { return 0 }
        var best = 1
        var seen = Set<String>()
        func walk(_ name: String, _ level: Int) {
            guard seen.insert(name).inserted else { return }
            for (parent, definition) in groups where parent != "all" && definition.children.contains(name) {
                best = max(best, level + 1)
                walk(parent, level + 1)
            }
            seen.remove(name)
        }
        walk(group, 1)
        return best
    }
}
