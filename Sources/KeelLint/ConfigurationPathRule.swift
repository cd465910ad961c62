/// Each configuration file's path under `/etc` (a string literal such as `/etc/NAME/NAME.yml`) is written in one file of
/// `folders`: the component that renders it declares it, and everything else names that declaration.
public struct ConfigurationPathRule: StructureRule {
    public let folders: [String]

    public init(folders: [String]) {
        self.folders = folders
    }

    public var name: String { "each configuration path declared once" }

    public func violations(in tree: SourceTree) -> [Violation] {
        var firstSeen: [String: String] = [:]
        var found: [Violation] = []
        for file in tree.files(under: folders) {
            for (index, line) in file.lines.enumerated() {
                for match in line.matches(of: /"(\/etc\/[^"\\]+\.(?:yml|yaml|cfg|conf|ini|env|json))"/) {
                    let path = String(match.1)
                    guard let declared = firstSeen[path] else {
                        firstSeen[path] = file.path
                        continue
                    }
                    if declared != file.path {
                        found.append(
                            Violation(
                                path: file.path, line: index + 1, rule: name,
                                message: "\(path) is declared in \(declared): name that declaration"))
                    }
                }
            }
        }
        return found
    }
}
