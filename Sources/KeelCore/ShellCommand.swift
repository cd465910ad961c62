/// A command line for `/bin/sh` in which every value is a quoted word unless the code says otherwise: a string put
/// in by interpolation is quoted (`"systemctl restart \(unit)"` stays one argument whatever `unit` holds), a number
/// goes in as it is, another `ShellCommand` as the command it is, and `\(raw:)` as shell text the code built itself.
///
/// ```swift
/// let stop: ShellCommand = "systemctl stop \(unit)"
/// let both: ShellCommand = "\(stop) && rm -f \(mark)"
/// ```
public struct ShellCommand: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The command line as `/bin/sh` reads it.
    public let text: String

    public var description: String { text }

    public init(stringLiteral value: String) { text = value }

    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    private init(text: String) { self.text = text }

    /// Shell text taken as it is: a command built elsewhere as text, which must quote its own values.
    public static func raw(_ text: String) -> ShellCommand { ShellCommand(text: text) }

    /// The two commands' text one after the other (a long command written over several lines).
    public static func + (lhs: ShellCommand, rhs: ShellCommand) -> ShellCommand { .raw(lhs.text + rhs.text) }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value, as one quoted word.
        public mutating func appendInterpolation(_ word: some StringProtocol) { text += shellQuote(String(word)) }

        public mutating func appendInterpolation(_ number: some BinaryInteger) { text += String(number) }

        /// Another command, as it is.
        public mutating func appendInterpolation(_ command: ShellCommand) { text += command.text }

        /// Shell text the code built itself (an operator, a redirection, a command kept as text), as it is.
        public mutating func appendInterpolation(raw shell: String) { text += shell }
    }
}

extension Array where Element == ShellCommand {
    /// The commands one after the other, `separator` (` `, ` && `) between them.
    public func joined(separator: String) -> ShellCommand { .raw(map(\.text).joined(separator: separator)) }
}
