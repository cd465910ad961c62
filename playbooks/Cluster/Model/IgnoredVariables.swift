import Keel

/// Variables nothing in Keel reads and postgresql_cluster does not define: other roles' and playbooks' settings
/// (`node_exporter_version`, `my_app_port`) in the same `group_vars`. Keel ignores them with one warning a run,
/// by file; `--strict` refuses them. A near-miss of a known name is not one of these: it is an error ("did you
/// mean").
public struct IgnoredVariables: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let origin: SourceLocation?
    }

    public private(set) var entries: [Entry] = []

    mutating func add(_ name: String, at origin: SourceLocation?) {
        let entry = Entry(name: name, origin: origin)
        if !entries.contains(entry) { entries.append(entry) }
    }

    /// The warning block: each file once, its variables with their lines; nil when there are none.
    public var warning: String? {
        guard !entries.isEmpty else { return nil }
        var files: [String] = []
        var byFile: [String: [Entry]] = [:]
        for entry in entries {
            let file = entry.origin?.file ?? "the command line"
            if byFile[file] == nil { files.append(file) }
            byFile[file, default: []].append(entry)
        }
        let lines = files.flatMap { file in
            ["  \(file):"]
                + byFile[file, default: []].sorted { ($0.origin?.line ?? 0) < ($1.origin?.line ?? 0) }.map {
                    "    line \($0.origin.map { String($0.line) } ?? "?"): \($0.name)"
                }
        }
        return "\(entries.count) variable(s) Keel does not use, ignored (another tool's, or misspelt?):\n"
            + lines.joined(separator: "\n")
    }
}
