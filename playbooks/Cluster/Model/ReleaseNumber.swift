/// A release number such as `4.1.5`, ordered part by part.
struct ReleaseNumber: Comparable, CustomStringConvertible, Sendable {
    let parts: [Int]

    init(_ parts: Int...) { self.parts = parts }

    /// `4.1.5` → `[4, 1, 5]`; nil when `text` is not numbers joined by dots.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.parts = parts.map { $0! }
    }

    static func < (lhs: ReleaseNumber, rhs: ReleaseNumber) -> Bool { lhs.parts.lexicographicallyPrecedes(rhs.parts) }

    /// Whether `version` is older than `release`; a version that is not a release number counts as older.
    static func isOlder(_ version: String, than release: ReleaseNumber) -> Bool {
        ReleaseNumber(version).map { $0 < release } ?? true
    }

    var description: String { parts.map(String.init).joined(separator: ".") }
}
