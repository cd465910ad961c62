/// A rule the project's structure keeps (`make lint` checks every one of ``StructureRule/all``).
public protocol StructureRule: Sendable {
    /// What it asks, as the report names it.
    var name: String { get }
    /// Where `tree` breaks it; none when it holds.
    func violations(in tree: SourceTree) -> [Violation]
}

/// One place a rule is broken.
public struct Violation: Equatable, Sendable, CustomStringConvertible {
    public var path: String
    /// 1-based; 0 for the file as a whole.
    public var line: Int
    public var rule: String
    public var message: String

    public var description: String { "\(path):\(line): \(rule): \(message)" }
}
