/// A variable's value and where it was set, so every later error can point at the line to fix.
public struct Variable: Sendable, Hashable {
    public var value: InventoryValue
    public var origin: SourceLocation

    public init(_ value: InventoryValue, at origin: SourceLocation) {
        self.value = value
        self.origin = origin
    }

    /// Whether the name says the value must never be shown (`***` in output): `…password…`, `…secret…`,
    /// `…token…`, and Ansible's `…_pass` (`ansible_ssh_pass`, `ansible_become_pass`).
    public static func isSecret(name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "passwd", "passphrase", "secret", "token"].contains { lowered.contains($0) }
            || lowered == "pass" || lowered.hasSuffix("_pass")
    }

    /// `value` as it may be shown under `name`: `***` for a secret, and within lists and mappings every entry whose
    /// key names a secret (`postgresql_users: [{name: app, password: ***}]`).
    public static func shown(_ value: InventoryValue, name: String) -> InventoryValue {
        if isSecret(name: name), value != .null { return .string("***") }
        switch value {
        case .list(let items): return .list(items.map { shown($0, name: "") })
        case .map(let entries): return .map(Dictionary(uniqueKeysWithValues: entries.map { ($0, shown($1, name: $0)) }))
        default: return value
        }
    }
}
