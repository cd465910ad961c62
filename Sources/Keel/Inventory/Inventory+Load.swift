import Foundation

extension Inventory {
    /// Reads the inventory at `path` (YAML or INI, chosen by extension or, without one, by content) and the
    /// `group_vars/` and `host_vars/` folders beside it.
    /// - Throws: ``InventoryError`` naming the file and line of the first problem found.
    public static func load(path: String) throws(InventoryError) -> Inventory {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InventoryError(
                "cannot read inventory file \(path)",
                hint: "check the path given with -i; it must be a YAML or INI file")
        }
        let text = try SourceText.decode(data, file: path)
        var builder = InventoryBuilder(path: path)
        if isYAML(path: path, text: text) {
            try YAMLInventoryReader.read(text, file: path, into: &builder)
        } else {
            try INIInventoryReader.read(text, file: path, into: &builder)
        }
        let directory = (path as NSString).deletingLastPathComponent
        return try builder.build(
            groupVariableFiles: try variableFiles(in: (directory as NSString).appendingPathComponent("group_vars")),
            hostVariableFiles: try variableFiles(in: (directory as NSString).appendingPathComponent("host_vars")))
    }

    private static func isYAML(path: String, text: String) -> Bool {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".yml") || lowered.hasSuffix(".yaml") || lowered.hasSuffix(".json") { return true }
        if lowered.hasSuffix(".ini") || lowered.hasSuffix(".cfg") { return false }
        let first = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix(";") }
        return first.map { !$0.hasPrefix("[") && ($0.hasSuffix(":") || $0 == "---") } ?? false
    }

    /// Variables from `NAME.yml`, `NAME.yaml`, `NAME` or every YAML file in a folder `NAME/`, keyed by NAME.
    private static func variableFiles(in directory: String) throws(InventoryError) -> [String: [String: Variable]] {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isFolder) else { return [:] }
        // One that is there but is no folder, or cannot be read, would silently give every setting its default.
        guard isFolder.boolValue, let entries = try? manager.contentsOfDirectory(atPath: directory) else {
            throw InventoryError(
                "cannot read the variables folder \(directory)",
                hint: "make it a readable folder of YAML files: every variable in it would otherwise fall back to "
                    + "its default")
        }
        var result: [String: [String: Variable]] = [:]
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(entry)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw InventoryError(
                    "cannot read \(path) (a broken link?)", hint: "fix or remove it: its variables would be lost")
            }
            if isDirectory.boolValue, ["yml", "yaml", "json"].contains((entry as NSString).pathExtension.lowercased()) {
                throw InventoryError(
                    "\(path) is a folder, not a variables file",
                    hint:
                        "name a folder of variables files after its group (\((entry as NSString).deletingPathExtension)/)"
                )
            }
            if isDirectory.boolValue {
                guard let listed = try? manager.contentsOfDirectory(atPath: path) else {
                    throw InventoryError(
                        "cannot read the variables folder \(path)",
                        hint: "check its permissions: every variable in it would otherwise fall back to its default")
                }
                let files = listed.sorted().filter(isVariableFile)
                for file in files {
                    result[entry, default: [:]].merge(
                        try variables(fromFile: (path as NSString).appendingPathComponent(file))
                    ) { $1 }
                }
            } else if isVariableFile(entry) {
                let name = (entry as NSString).deletingPathExtension
                result[name, default: [:]].merge(try variables(fromFile: path)) { $1 }
            }
        }
        return result
    }

    private static func isVariableFile(_ name: String) -> Bool {
        let suffix = (name as NSString).pathExtension.lowercased()
        return ["", "yml", "yaml", "json"].contains(suffix)
    }

    /// The variables of the YAML (or JSON) file at `path`, which `option` names when a command-line option
    /// (`-e #1`) gave it rather than the inventory's folders.
    static func variables(fromFile path: String, option: String? = nil) throws(InventoryError) -> [String: Variable] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InventoryError(
                "cannot read variables file \(path)" + (option.map { " (\($0))" } ?? ""),
                hint: option == nil ? nil : "check the path after @")
        }
        // Each variable keeps its line; what it holds is composed straight into its value.
        guard let root = try YAMLDocument.parse(try SourceText.decode(data, file: path), file: path, nodeDepth: 1)
        else {
            // An empty file (a failed copy, a truncated edit) would give every setting its default without a word.
            throw InventoryError(
                "variables file \(path) holds no variables", at: SourceLocation(file: path, line: 1),
                hint: option == nil
                    ? "fill it, or remove it if it is meant to be empty" : "fill it, or leave out -e @\(path)")
        }
        return try YAMLDocument.variables(in: root, file: path, context: "variables file \(path)")
    }
}
