/// A variable's value and where it was set, so every later error can point at the line to fix.
public struct Variable: Sendable, Hashable {
    public let value: InventoryValue
    public let origin: SourceLocation
    /// Whether a string in the value holds Jinja still to evaluate: looked for once, not at every read of a large
    /// value.
    let holdsTemplate: Bool

    public init(_ value: InventoryValue, at origin: SourceLocation) {
        self.value = value
        self.origin = origin
        holdsTemplate = value.holdsTemplate
    }

    /// A value whose templates were evaluated.
    init(evaluated value: InventoryValue, at origin: SourceLocation) {
        self.value = value
        self.origin = origin
        holdsTemplate = false
    }

    /// Whether the name says the value must never be shown (`***` in output): `…password…`, `…secret…`,
    /// `…token…`, and Ansible's `…_pass` (`ansible_ssh_pass`, `ansible_become_pass`).
    public static func isSecret(name: String) -> Bool {
        guard !name.isEmpty else { return false }
        let lowered = name.lowercased()
        let bytes = Array(lowered.utf8)
        return secretWords.contains { word in
            bytes.count >= word.count
                && (0...(bytes.count - word.count)).contains { bytes[$0..<$0 + word.count].elementsEqual(word) }
        } || lowered == "pass" || lowered.hasSuffix("_pass")
    }

    private static let secretWords = ["password", "passwd", "passphrase", "secret", "token"].map { Array($0.utf8) }

    /// `value` as it may be shown under `name`: `***` for a secret, and within lists and mappings every entry whose
    /// key names a secret (`postgresql_users: [{name: app, password: ***}]`).
    public static func shown(_ value: InventoryValue, name: String) -> InventoryValue {
        masked(value, name: name) ?? value
    }

    /// `value` masked, or nil when nothing in it is a secret (a large value is then not copied).
    private static func masked(_ value: InventoryValue, name: String) -> InventoryValue? {
        if isSecret(name: name), value != .null { return .string("***") }
        switch value {
        case .list(let items):
            var shown = items
            var changed = false
            for (index, item) in items.enumerated() {
                if let masked = masked(item, name: "") { (shown[index], changed) = (masked, true) }
            }
            return changed ? .list(shown) : nil
        case .map(let entries):
            var shown = entries
            var changed = false
            for (key, item) in entries {
                if let masked = masked(item, name: key) { (shown[key], changed) = (masked, true) }
            }
            return changed ? .map(shown) : nil
        default: return nil
        }
    }
}
