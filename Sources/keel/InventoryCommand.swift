import ArgumentParser
import Foundation
import Keel
import Playbooks

struct InventoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory",
        abstract: "Show the inventory's hosts, groups and resolved variables (secrets as ***).")

    @OptionGroup var inventoryOptions: InventoryOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Say what Keel makes of each variable (postgresql_cluster's included) and where it is set.")
    var explain = false

    func validate() throws {
        if explain && json { throw ValidationError("--explain prints text; it does not go with --json") }
    }

    func run() async throws {
        let (inventory, hosts) = try inventoryOptions.load()
        if explain {
            var seen = Set<String>()
            var text = ""
            for host in hosts {
                let reader = VariableReader(host: host, variables: inventory.variables(for: host))
                for (name, variable) in inventory.variables(for: host).sorted(by: { $0.key < $1.key })
                where !Inventory.magicVariables.contains(name)
                    && seen.insert(name + " " + variable.origin.description).inserted
                {
                    let how = ReferenceVariable.explanation(of: name, value: variable.value, evaluatedBy: reader)
                    text += "\(name) (\(variable.origin)): \(how)\n"
                }
            }
            Terminal.write(text)
        } else if json {
            Terminal.write(try InventoryReport(inventory, hosts: hosts).json() + "\n")
        } else {
            InventoryReport(inventory, hosts: hosts).text(Terminal.write)
        }
    }
}

/// The resolved view of an inventory that `keel inventory` shows.
struct InventoryReport: Encodable {
    struct Host: Encodable {
        var groups: [String]
        var vars: [String: InventoryValue]
    }

    var groups: [String: [String]]
    var hosts: [String: Host]
    private let order: [String]

    init(_ inventory: Inventory, hosts selected: [String]) {
        order = selected
        groups = Dictionary(
            uniqueKeysWithValues: inventory.groupNames.map { group in
                (group, inventory.hostNames(in: group).filter(selected.contains))
            })
        hosts = Dictionary(
            uniqueKeysWithValues: selected.map { host in
                let masked = Dictionary(
                    uniqueKeysWithValues: inventory.variables(for: host).compactMap { name, variable in
                        Inventory.magicVariables.contains(name)
                            ? nil : (name, Variable.shown(variable.value, name: name))
                    })
                return (host, Host(groups: inventory.groups(of: host), vars: masked))
            })
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The report as text, handed to `write` a host at a time (a large inventory is never one string).
    func text(_ write: (String) -> Void) {
        var text = "groups:\n"
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) {
            text += "  \(group): \(members.joined(separator: ", "))\n"
        }
        text += "hosts:\n"
        write(text)
        for name in order {
            guard let host = hosts[name] else { continue }
            text = "  \(name)  (groups: \(host.groups.joined(separator: ", ")))\n"
            for (key, value) in host.vars.sorted(by: { $0.key < $1.key }) {
                var shown = ""
                value.write(to: &shown)
                text += "    \(terminalSafe(key)): \(terminalSafe(shown))\n"
            }
            write(text)
        }
    }

    private enum CodingKeys: String, CodingKey { case groups, hosts }
}
