/// The ports `portsFile` declares (`static let name = 2379`) are written nowhere else under `folders`: every
/// configuration, check and pre-flight names them from there.
public struct PortsInOneFileRule: StructureRule {
    public let portsFile: String
    public let folders: [String]

    public init(portsFile: String, folders: [String]) {
        self.portsFile = portsFile
        self.folders = folders
    }

    public var name: String { "the cluster's ports in one file" }

    public func violations(in tree: SourceTree) -> [Violation] {
        let ports = (tree.text(portsFile) ?? "").matches(of: /static let (\w+) = (\d{2,5})\b/).map {
            (name: String($0.1), number: String($0.2))
        }
        return tree.files(under: folders).filter { $0.path != portsFile }.flatMap { file in
            file.lines.enumerated().flatMap { index, line in
                ports.filter { Self.holds(line, word: $0.number) }.map { port in
                    Violation(
                        path: file.path, line: index + 1, rule: name,
                        message: "\(port.number) is ClusterPorts.\(port.name): name it so")
                }
            }
        }
    }

    /// Whether `word` stands in `line` with no letter, digit or underscore beside it (2379, not 52379 or 0x2379ab).
    static func holds(_ line: String, word: String) -> Bool {
        var rest = line[...]
        while let found = rest.range(of: word) {
            let before = found.lowerBound == line.startIndex ? nil : line[line.index(before: found.lowerBound)]
            let after = found.upperBound == line.endIndex ? nil : line[found.upperBound]
            let isWordCharacter = { (character: Character?) in
                character.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
            }
            if !isWordCharacter(before), !isWordCharacter(after) { return true }
            rest = line[found.upperBound...]
        }
        return false
    }
}
