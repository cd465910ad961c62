import Foundation

/// The layout table of `document` (the rows of its section `heading`) names every folder of `Sources/` and of
/// `playbooks/Cluster/`, and every path it names exists: a newcomer's map matches the ground.
public struct LayoutTableRule: StructureRule {
    public let document: String
    public let heading: String

    public init(document: String, heading: String = "# Layout") {
        self.document = document
        self.heading = heading
    }

    public var name: String { "the layout table matches the folders" }

    public func violations(in tree: SourceTree) -> [Violation] {
        guard let text = tree.text(document) else {
            return [Violation(path: document, line: 0, rule: name, message: "no such file")]
        }
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: heading) else {
            return [Violation(path: document, line: 0, rule: name, message: "no \"\(heading)\" section")]
        }
        // The section ends at the next heading of its level or above.
        let level = heading.prefix { $0 == "#" }.count
        let ends = { (line: String) in
            let marks = line.prefix { $0 == "#" }.count
            return marks > 0 && marks <= level && line.dropFirst(marks).hasPrefix(" ")
        }
        let rows = lines.enumerated().dropFirst(start + 1).prefix { !ends($0.element) }
            .filter { $0.element.hasPrefix("| `") }
        let table = rows.map(\.element).joined(separator: "\n")
        var found: [Violation] = []
        for (index, row) in rows {
            let first = row.split(separator: "|").first ?? ""
            for path in first.matches(of: /`([^`]+)`/).map({ String($0.1) }) {
                var isFolder: ObjCBool = false
                if !FileManager.default.fileExists(atPath: tree.root + "/" + path, isDirectory: &isFolder) {
                    found.append(
                        Violation(
                            path: document, line: index + 1, rule: name, message: "\(path) does not exist"))
                }
            }
        }
        let line = start + 1
        for folder in tree.folders(in: "Sources") where !table.contains("`Sources/\(folder)`") {
            found.append(
                Violation(path: document, line: line, rule: name, message: "no row for Sources/\(folder)"))
        }
        for folder in tree.folders(in: "playbooks/Cluster") where !table.contains("`\(folder)/`") {
            found.append(
                Violation(
                    path: document, line: line, rule: name,
                    message: "playbooks/Cluster/\(folder)/ is not named in the table"))
        }
        return found
    }
}
