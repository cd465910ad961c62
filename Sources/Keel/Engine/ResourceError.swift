/// A resource's probe or state could not be read; names the resource and what was seen.
public struct ResourceError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
