/// A variable's value and where it was set, so every later error can point at the line to fix.
public struct Variable: Sendable, Hashable {
    public var value: InventoryValue
    public var origin: SourceLocation

    public init(_ value: InventoryValue, at origin: SourceLocation) {
        self.value = value
        self.origin = origin
    }

    /// Whether the name says the value must never be shown (`***` in output).
    public static func isSecret(name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "passwd", "passphrase", "secret", "token"].contains { lowered.contains($0) }
    }
}
