/// No two folders of `parent` point at each other: when a file of one names a type declared at the top of a file
/// of the other, no file of the other names one of the first's. The folders then read one way (a flow at its
/// components, a component at the model), never back.
public struct FolderCycleRule: StructureRule {
    public let parent: String

    public init(parent: String) {
        self.parent = parent
    }

    public var name: String { "no two folders of \(parent) pointing at each other" }

    public func violations(in tree: SourceTree) -> [Violation] {
        let declaration =
            /^(?:public |private |fileprivate |internal |final )*(?:struct|enum|class|protocol|actor|typealias) ([A-Z]\w*)/
        var owner: [String: String] = [:]
        var files: [String: [SourceTree.File]] = [:]
        for folder in tree.folders(in: parent) {
            files[folder] = tree.files(under: [parent + "/" + folder])
            for file in files[folder] ?? [] {
                for line in file.lines {
                    if let match = line.firstMatch(of: declaration) { owner[String(match.1)] = folder }
                }
            }
        }
        /// folder → (folder it names → the first place it does: file, line, type).
        var edges: [String: [String: (path: String, line: Int, type: String)]] = [:]
        for (folder, sources) in files {
            for file in sources {
                for (index, line) in file.lines.enumerated() {
                    let code = line.components(separatedBy: "//").first ?? ""
                    for word in code.matches(of: /[A-Z]\w*/) {
                        let type = String(word.0)
                        guard let other = owner[type], other != folder, edges[folder]?[other] == nil else { continue }
                        edges[folder, default: [:]][other] = (file.path, index + 1, type)
                    }
                }
            }
        }
        var found: [Violation] = []
        for (folder, named) in edges.sorted(by: { $0.key < $1.key }) {
            for (other, place) in named.sorted(by: { $0.key < $1.key }) where folder < other {
                guard let back = edges[other]?[folder] else { continue }
                found.append(
                    Violation(
                        path: place.path, line: place.line, rule: name,
                        message: "\(folder)/ names \(other)/'s \(place.type), and \(other)/ names \(folder)/'s "
                            + "\(back.type) (\(back.path):\(back.line)): move one of them so they point one way"))
            }
        }
        return found
    }
}
