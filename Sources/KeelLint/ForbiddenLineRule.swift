/// No line of the files under `folders` holds `text` (or, with `atStart`, begins with it).
public struct ForbiddenLineRule: StructureRule {
    public let name: String
    public let text: String
    public let atStart: Bool
    public let folders: [String]
    public let suffix: String
    /// What to do instead.
    public let hint: String

    public init(
        _ name: String, text: String, atStart: Bool = false, folders: [String], suffix: String = ".swift",
        hint: String
    ) {
        self.name = name
        self.text = text
        self.atStart = atStart
        self.folders = folders
        self.suffix = suffix
        self.hint = hint
    }

    public func violations(in tree: SourceTree) -> [Violation] {
        tree.files(under: folders, endingWith: suffix).flatMap { file in
            file.lines.enumerated().compactMap { index, line in
                let found = atStart ? line.hasPrefix(text) : line.contains(text)
                return found ? Violation(path: file.path, line: index + 1, rule: name, message: hint) : nil
            }
        }
    }
}
