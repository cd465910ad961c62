import Foundation

/// A host selection as Ansible's `--limit` writes it.
///
/// Terms are separated by `:` or `,`. A plain term adds hosts, `&term` keeps only hosts also in it, `!term`
/// removes hosts. A term is a group, a host, a glob over host and group names (`pg*`), or `@FILE` (one host per
/// line, as written by a failed run).
public struct HostPattern: Sendable {
    private enum Operation { case union, intersection, exclusion }
    private let terms: [(Operation, String)]
    public let text: String

    public init(_ text: String) {
        self.text = text
        terms = text.split(whereSeparator: { $0 == ":" || $0 == "," }).map { raw in
            if raw.hasPrefix("!") { return (.exclusion, String(raw.dropFirst())) }
            if raw.hasPrefix("&") { return (.intersection, String(raw.dropFirst())) }
            return (.union, String(raw))
        }
    }

    /// The selected hosts, in inventory order.
    /// - Throws: ``InventoryError`` when a term matches nothing, so a typo never silently selects no host.
    public func resolve(in inventory: Inventory) throws(InventoryError) -> [String] {
        var selected = Set<String>()
        var sawUnion = false
        for (operation, term) in terms where operation == .union {
            sawUnion = true
            selected.formUnion(try hosts(for: term, in: inventory))
        }
        if !sawUnion { selected = Set(inventory.hostNames) }
        for (operation, term) in terms where operation == .intersection {
            selected.formIntersection(try hosts(for: term, in: inventory))
        }
        for (operation, term) in terms where operation == .exclusion {
            selected.subtract(try hosts(for: term, in: inventory))
        }
        return inventory.hostNames.filter(selected.contains)
    }

    private func hosts(for term: String, in inventory: Inventory) throws(InventoryError) -> Set<String> {
        guard !term.isEmpty else {
            throw InventoryError(
                "the host pattern '\(text)' has an empty term (a `&` or `!` with no group or host after it)")
        }
        if term.hasPrefix("@") {
            let path = String(term.dropFirst())
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw InventoryError("cannot read the host list \(path) named in --limit")
            }
            return Set(
                text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                    !$0.isEmpty
                })
        }
        if inventory.groups[term] != nil { return Set(inventory.hostNames(in: term)) }
        if inventory.hosts[term] != nil { return [term] }
        if term.contains(where: { "*?[".contains($0) }) {
            var matched = Set(inventory.hostNames.filter { fnmatch(term, $0, 0) == 0 })
            for group in inventory.groups.keys where fnmatch(term, group, 0) == 0 {
                matched.formUnion(inventory.hostNames(in: group))
            }
            if !matched.isEmpty { return matched }
        }
        throw InventoryError(
            "'\(term)' in the host pattern '\(text)' matches no host or group of \(inventory.path)",
            hint: "groups are: \(inventory.groupNames.joined(separator: ", "))")
    }
}
