import Foundation

/// The project's files as the structure rules read them: paths relative to the repository's root, each file's
/// lines.
public struct SourceTree: Sendable {
    /// A file of the tree.
    public struct File: Sendable {
        /// Its path from the root (`playbooks/Cluster/Model/ClusterPorts.swift`).
        public var path: String
        public var lines: [String]
    }

    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The files under `folders` whose names end with `suffix`, sorted by path.
    public func files(under folders: [String], endingWith suffix: String = ".swift") -> [File] {
        var found: [File] = []
        for folder in folders {
            let base = root + "/" + folder
            guard let walker = FileManager.default.enumerator(atPath: base) else { continue }
            for case let relative as String in walker where relative.hasSuffix(suffix) {
                let path = folder + "/" + relative
                guard let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { continue }
                found.append(File(path: path, lines: text.components(separatedBy: "\n")))
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The folders directly inside `folder`, sorted.
    public func folders(in folder: String) -> [String] {
        let base = root + "/" + folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isFolder)
                && isFolder.boolValue
        }.sorted()
    }

    /// The text of the file at `path`, or nil.
    public func text(_ path: String) -> String? {
        try? String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }
}
