/// No file under `folders` (those whose path contains `narrowedTo`, when given) is longer than `limit` lines: a
/// file that long holds more than one concept.
public struct FileLengthRule: StructureRule {
    public let limit: Int
    public let folders: [String]
    public let narrowedTo: String?

    public init(limit: Int, folders: [String], narrowedTo: String? = nil) {
        self.limit = limit
        self.folders = folders
        self.narrowedTo = narrowedTo
    }

    public var name: String { "no \(narrowedTo.map { "\($0) " } ?? "")file over \(limit) lines" }

    public func violations(in tree: SourceTree) -> [Violation] {
        tree.files(under: folders).filter { narrowedTo.map($0.path.contains) ?? true }.compactMap { file in
            // A file ending with a newline splits into one empty last line.
            let count = file.lines.last == "" ? file.lines.count - 1 : file.lines.count
            guard count > limit else { return nil }
            return Violation(
                path: file.path, line: 0, rule: name,
                message: "\(count) lines: split it, one concept to a file")
        }
    }
}
