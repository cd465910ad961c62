import Keel

/// What a flow refuses to do, and what to do instead.
public struct FlowError: Error, CustomStringConvertible {
    public var description: String

    public init(_ problem: String, hint: String) { description = "\(problem)\n  hint: \(hint)" }
}
