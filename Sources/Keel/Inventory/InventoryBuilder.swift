/// Collects what the YAML and INI readers find, then checks it as a whole: every child group defined, no cycles,
/// no host defined twice with conflicting values.
struct InventoryBuilder {
    private let path: String
    private var hostNames: [String] = []
    private var hosts: [String: Inventory.Host] = [:]
    private var groups: [String: Inventory.Group] = [:]
    /// Child groups named without a body, with where they were named; each must be defined somewhere.
    private var references: [(group: String, parent: String, location: SourceLocation)] = []

    init(path: String) {
        self.path = path
        groups["all"] = Inventory.Group(name: "all", hosts: [], children: [], variables: [:], location: nil)
    }

    /// Declares `name` as a group with a body (hosts, variables or children), at `location`.
    mutating func defineGroup(_ name: String, at location: SourceLocation) {
        if groups[name] == nil {
            groups[name] = Inventory.Group(name: name, hosts: [], children: [], variables: [:], location: location)
        } else if groups[name]?.location == nil, name != "all" {
            groups[name]?.location = location
        }
    }

    /// Makes `child` a child of `parent`; `defined` is false when the child is only named here.
    mutating func addChild(_ child: String, to parent: String, at location: SourceLocation, defined: Bool) {
        if !defined { references.append((child, parent, location)) }
        if groups[child] == nil {
            groups[child] = Inventory.Group(
                name: child, hosts: [], children: [], variables: [:], location: defined ? location : nil)
        }
        if !(groups[parent]?.children.contains(child) ?? true) { groups[parent]?.children.append(child) }
    }

    /// Adds `host` to `group` with its own variables; a second definition must not contradict the first.
    mutating func addHost(_ name: String, to group: String, variables: [String: Variable], at location: SourceLocation)
        throws(InventoryError)
    {
        if var existing = hosts[name] {
            for (key, variable) in variables {
                if let previous = existing.variables[key], previous.value != variable.value {
                    let (old, new) = (
                        Variable.shown(previous.value, name: key), Variable.shown(variable.value, name: key)
                    )
                    throw InventoryError(
                        "host \(name) is defined twice with different values for \(key): \(old) at \(previous.origin) and \(new) here",
                        at: variable.origin,
                        hint: "keep one value: set it once on the host, or move it to a group variable")
                }
                existing.variables[key] = variable
            }
            hosts[name] = existing
        } else {
            hostNames.append(name)
            hosts[name] = Inventory.Host(name: name, variables: variables, location: location)
        }
        if group != "all", !(groups[group]?.hosts.contains(name) ?? true) { groups[group]?.hosts.append(name) }
    }

    mutating func setVariable(_ key: String, _ variable: Variable, onGroup group: String) {
        groups[group]?.variables[key] = variable
    }

    /// Checks the whole and returns the inventory, with variables from `group_vars/` and `host_vars/` attached.
    func build(groupVariableFiles: [String: [String: Variable]], hostVariableFiles: [String: [String: Variable]])
        throws(InventoryError) -> Inventory
    {
        for reference in references where groups[reference.group]?.location == nil {
            throw InventoryError(
                "group '\(reference.group)' is listed as a child of '\(reference.parent)' but is not defined",
                at: reference.location,
                hint:
                    "define [\(reference.group)] with its hosts, fix the name if it is a typo, or declare an empty group explicitly"
            )
        }
        try checkForCycles()
        var groups = self.groups
        for top in groups.keys where top != "all" && !groups.values.contains(where: { $0.children.contains(top) }) {
            groups["all"]?.children.append(top)
        }
        let grouped = Set(groups.values.filter { $0.name != "all" }.flatMap(\.hosts))
        let ungrouped = hostNames.filter { !grouped.contains($0) }
        if !ungrouped.isEmpty {
            groups[
                "ungrouped",
                default: Inventory.Group(name: "ungrouped", hosts: [], children: [], variables: [:], location: nil)
            ].hosts = ungrouped
            if !(groups["all"]?.children.contains("ungrouped") ?? false) { groups["all"]?.children.append("ungrouped") }
        }
        for (group, variables) in groupVariableFiles where groups[group] == nil {
            let origin = variables.values.first?.origin
            throw InventoryError(
                "group_vars file for '\(group)' names a group the inventory does not define", at: origin,
                hint: "rename the file after one of: \(groups.keys.sorted().joined(separator: ", "))")
        }
        for (host, variables) in hostVariableFiles where hosts[host] == nil {
            throw InventoryError(
                "host_vars file for '\(host)' names a host the inventory does not define",
                at: variables.values.first?.origin,
                hint: "rename the file after one of: \(hostNames.joined(separator: ", "))")
        }
        return Inventory(
            path: path, hostNames: hostNames, hosts: hosts, groups: groups,
            groupVariableFiles: groupVariableFiles, hostVariableFiles: hostVariableFiles)
    }

    private func checkForCycles() throws(InventoryError) {
        var state: [String: Bool] = [:]  // false: on the current path, true: finished
        func visit(_ name: String, _ path: [String]) -> [String]? {
            if state[name] == true { return nil }
            if state[name] == false { return path + [name] }
            state[name] = false
            for child in groups[name]?.children ?? [] {
                if let cycle = visit(child, path + [name]) { return cycle }
            }
            state[name] = true
            return nil
        }
        for name in groups.keys.sorted() {
            if let cycle = visit(name, []) {
                throw InventoryError(
                    "groups contain each other: \(cycle.joined(separator: " → "))",
                    at: groups[cycle[0]]?.location,
                    hint: "a group cannot be its own descendant; remove one of these children")
            }
        }
    }
}
