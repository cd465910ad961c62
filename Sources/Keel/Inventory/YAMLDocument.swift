/// Turns YAML text into nodes and values that remember their line, with errors that name the file and line.
enum YAMLDocument {
    static func parse(_ text: String, file: String) throws(InventoryError) -> YAMLNode? {
        // Without aliases a value takes at least a byte of text: a document standing for many more values than it
        // has bytes is an alias bomb, refused before anything walks it.
        do {
            return try YAMLComposer.compose(text, budget: 4 * text.utf8.count + 10_000)
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
            variables[name] = Variable(self.value(of: value), at: location(key, file))
        }
        return variables
    }

    /// The node's value, with plain scalars typed as YAML 1.1 resolves them (`yes` is true, `0755` is 493);
    /// quoted ones stay strings.
    static func value(of node: YAMLNode) -> InventoryValue {
        switch node.content {
        case .scalar(let text, let plain):
            return plain ? YAMLScalar.value(text) : .string(text)
        case .sequence(let items):
            return .list(items.map(value(of:)))
        case .mapping(let entries):
            var map: [String: InventoryValue] = [:]
            for (key, item) in entries { map[key.text ?? "\(value(of: key))"] = value(of: item) }
            return .map(map)
        }
    }

    static func isNull(_ node: YAMLNode) -> Bool {
        if case .scalar = node.content { return value(of: node) == .null }
        return false
    }

    static func location(_ node: YAMLNode, _ file: String) -> SourceLocation {
        SourceLocation(file: file, line: node.line)
    }

    static func kind(of node: YAMLNode) -> String {
        switch node.content {
        case .scalar: "a single value"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}
