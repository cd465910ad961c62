import Yams

/// Turns YAML text into nodes and values that remember their line, with errors that name the file and line.
enum YAMLDocument {
    static func parse(_ text: String, file: String) throws(InventoryError) -> Node? {
        let root: Node?
        do {
            // The basic resolver leaves plain scalars untyped: YAMLScalar types them, far faster.
            root = try Yams.compose(yaml: text, .basic)
        } catch let error as YamlError {
            throw InventoryError(
                describe(error), at: SourceLocation(file: file, line: line(of: error, in: text) ?? 1),
                hint: "fix the YAML syntax at that line")
        } catch {
            throw InventoryError("cannot parse YAML: \(error)", at: SourceLocation(file: file, line: 1))
        }
        if let root {
            // Aliases are expanded where they are used: a few lines of anchors can stand for billions of values
            // (an alias bomb). Without aliases a value takes at least a byte of text, so a document standing for
            // many more values than it has bytes is refused before anything walks it.
            var budget = 4 * text.utf8.count + 10_000
            guard fits(root, within: &budget) else {
                throw InventoryError(
                    "\(file) stands for more values than its size allows once its aliases are expanded (an alias bomb?)",
                    at: location(root, file), hint: "use fewer nested aliases (*name) in this file")
            }
        }
        return root
    }

    /// Whether `node`, aliases expanded, has at most `budget` nodes; stops counting as soon as it has more.
    private static func fits(_ node: Node, within budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch node {
        case .scalar, .alias: return true
        case .sequence(let items): return items.allSatisfy { fits($0, within: &budget) }
        case .mapping(let entries):
            return entries.allSatisfy { fits($0.key, within: &budget) && fits($0.value, within: &budget) }
        }
    }

    /// A mapping's entries as variables, each keeping the line it was written on.
    static func variables(in node: Node, file: String, context: String) throws(InventoryError) -> [String: Variable] {
        guard case .mapping(let entries) = node else {
            throw InventoryError(
                "\(context) must be a mapping of variable names to values, not \(kind(of: node))",
                at: location(node, file))
        }
        var variables: [String: Variable] = [:]
        for (key, value) in entries {
            guard case .scalar(let name) = key else {
                throw InventoryError("variable names in \(context) must be plain words", at: location(key, file))
            }
            variables[name.string] = Variable(self.value(of: value), at: location(key, file))
        }
        return variables
    }

    /// The node's value, with plain scalars typed as YAML 1.1 resolves them (`yes` is true, `0755` is 493);
    /// quoted ones stay strings.
    static func value(of node: Node) -> InventoryValue {
        switch node {
        case .scalar(let scalar):
            return scalar.style == .plain ? YAMLScalar.value(scalar.string) : .string(scalar.string)
        case .sequence(let items):
            return .list(items.map(value(of:)))
        case .mapping(let entries):
            var map: [String: InventoryValue] = [:]
            for (key, item) in entries { map[key.string ?? "\(value(of: key))"] = value(of: item) }
            return .map(map)
        case .alias:
            return .null
        }
    }

    static func isNull(_ node: Node) -> Bool {
        if case .scalar = node { return value(of: node) == .null }
        return false
    }

    static func location(_ node: Node, _ file: String) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 1)
    }

    static func kind(of node: Node) -> String {
        switch node {
        case .scalar: "a single value"
        case .sequence: "a list"
        case .mapping: "a mapping"
        case .alias: "an alias"
        }
    }

    private static func line(of error: YamlError, in text: String) -> Int? {
        switch error {
        case .reader(_, let offset?, _, _): 1 + text.utf8.prefix(offset).filter { $0 == UInt8(ascii: "\n") }.count
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _): mark.line
        case .composer(_, _, let mark, _): mark.line
        case .duplicatedKeysInMapping(_, let context): context.mark.line
        default: nil
        }
    }

    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _),
            .composer(let context, let problem, _, _):
            "invalid YAML: "
                + (problem.hasPrefix("Maximum nesting level reached") ? "nested too deeply" : problem)
                + (context.map { " (\($0.text))" } ?? "")
        case .duplicatedKeysInMapping(let duplicates, _):
            "the same key appears twice in one mapping: " + duplicates.sorted().joined(separator: ", ")
        case .reader(let problem, let offset, _, _):
            // Not the text itself: a binary file would be dumped to the terminal.
            "cannot read this as YAML text: \(problem)" + (offset.map { " at byte \($0)" } ?? "")
        default:
            "invalid YAML: \(error)"
        }
    }
}
