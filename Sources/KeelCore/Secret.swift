/// A value that must never be printed, logged or put on a command line.
///
/// Its `description` is `***`; read the value itself through ``reveal()``, at the one place it is needed.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    private let value: String

    public init(_ value: String) {
        self.value = value
        SecretRegistry.remember(value)
    }

    /// The secret text. Call it only where the value is handed to its consumer.
    public func reveal() -> String { value }

    public var description: String { "***" }
    public var debugDescription: String { "***" }
}
