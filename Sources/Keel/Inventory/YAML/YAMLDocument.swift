/// Turns YAML text into nodes and values that remember their line, with errors that name the file and line.
enum YAMLDocument {
    /// The document's nodes down to `nodeDepth` (see ``YAMLComposer``), values below.
    static func parse(_ text: String, file: String, nodeDepth: Int) throws(InventoryError) -> YAMLNode? {
        // Without aliases a value takes at least a byte of text: a document standing for many more values than it
        // has bytes is an alias bomb, refused before anything walks it.
        do {
            return try YAMLComposer.compose(text, budget: 4 * text.utf8.count + 10_000, nodeDepth: nodeDepth)
        } catch {
            throw InventoryError(
                error.message, at: SourceLocation(file: file, line: error.line),
                hint: error.message.contains("alias bomb")
                    ? "use fewer nested aliases (*name) in this file" : "fix the YAML syntax at that line")
        }
    }

    /// A mapping's entries as variables, each keeping the line it was written on.
    static func variables(in node: YAMLNode, file: String, context: String) throws(InventoryError) -> [String: Variable]
    {
        guard case .mapping(let entries) = node.content else {
            throw InventoryError(
                "\(context) must be a mapping of variable names to values, not \(kind(of: node))",
                at: location(node, file))
        }
        var variables: [String: Variable] = [:]
        for (key, value) in entries {
            guard let name = key.text else {
                throw InventoryError("variable names in \(context) must be plain words", at: location(key, file))
            }
            variables[name] = Variable(value.value, at: location(key, file))
        }
        return variables
    }

    static func isNull(_ node: YAMLNode) -> Bool {
        if case .scalar = node.content { return node.value == .null }
        return false
    }

    static func location(_ node: YAMLNode, _ file: String) -> SourceLocation {
        SourceLocation(file: file, line: node.line)
    }

    static func kind(of node: YAMLNode) -> String {
        switch node.content {
        case .scalar: "a single value"
        case .sequence: "a list"
        case .mapping, .value(.map): "a mapping"
        case .value(.list): "a list"
        case .value: "a single value"
        }
    }
}
