/// Bad inventory input: what is wrong, where, and what to do about it.
public struct InventoryError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation?
    public var message: String
    /// What the user can do to fix it.
    public var hint: String?

    public init(_ message: String, at location: SourceLocation? = nil, hint: String? = nil) {
        self.location = location
        self.message = message
        self.hint = hint
    }

    public var description: String {
        // Without a place, the message alone: the CLI already says "Error:".
        var text = location.map { "\($0): error: " } ?? ""
        text += message
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}
