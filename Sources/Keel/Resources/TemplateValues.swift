import Foundation

/// A host's template context (Stencil takes `[String: Any]`, which is not `Sendable`; it is never mutated).
struct TemplateValues: @unchecked Sendable {
    let context: [String: Any]

    init(host: String, inventory: Inventory, variables: [String: Variable], facts: Facts) {
        var context = variables.mapValues { $0.value.stencilValue }
        context["facts"] = facts.templateValue
        context["inventory_hostname"] = host
        context["groups"] = Dictionary(
            uniqueKeysWithValues: inventory.groupNames.map { ($0, inventory.hostNames(in: $0)) })
        context["hostvars"] = Dictionary(
            uniqueKeysWithValues: inventory.hostNames.map { name in
                (name, inventory.variables(for: name).mapValues { $0.value.stencilValue })
            })
        self.context = context
    }
}
