/// Expands Ansible host ranges: `pg[1:3]` is pg1, pg2, pg3; `db[01:10]` keeps the leading zeros. A line stands
/// for at most ``limit`` hosts: a typo such as `x[1:100000000]` is refused, not expanded.
enum HostRange {
    static let limit = 10_000

    static func expand(_ pattern: String, at location: SourceLocation) throws(InventoryError) -> [String] {
        guard let open = pattern.firstIndex(of: "["), let close = pattern[open...].firstIndex(of: "]") else {
            return [pattern]
        }
        let bounds = pattern[pattern.index(after: open)..<close].split(separator: ":")
        guard bounds.count == 2, let low = Int(bounds[0]), let high = Int(bounds[1]), low <= high else {
            throw InventoryError("host range '\(pattern)' must look like name[1:3]", at: location)
        }
        let width = bounds[0].count
        let prefix = pattern[..<open]
        let suffixes = try expand(String(pattern[pattern.index(after: close)...]), at: location)
        let span = high.subtractingReportingOverflow(low)
        guard !span.overflow, span.partialValue < limit, (span.partialValue + 1) * suffixes.count <= limit else {
            throw InventoryError(
                "host range '\(pattern)' stands for more than \(limit) hosts", at: location,
                hint: "check the range's bounds")
        }
        return (low...high).flatMap { number in
            let digits = String(number)
            let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
            return suffixes.map { String(prefix) + padded + $0 }
        }
    }
}
