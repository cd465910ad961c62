// The libyaml that Yams builds, used for its events: Keel composes its own nodes from them, in one pass, in time
// proportional to the text, with each node's line, and with bounds on what a small file may stand for.
internal import CYaml

/// Builds one YAML document from libyaml's events: nodes with their lines down to `nodeDepth`, values below it.
///
/// A variables file needs the line of each of its variables, not of every item inside them; composing what lies
/// deeper straight into values (no node per item, no second pass) keeps a large file quick to read.
///
/// An alias refers to its anchor's node (no copy); the nodes a document stands for once its aliases are expanded
/// are counted as they are met, and a document standing for more than `budget` of them (an alias bomb) is refused
/// at the alias that crosses the line. Nesting deeper than `maxDepth` is refused too, so that nothing later
/// recurses without bound. Merge keys (`<<: *defaults`) are merged; a key twice in one mapping is an error.
struct YAMLComposer {
    /// Why the text is not a document Keel reads, and the line (from 1).
    struct Failure: Error {
        var message: String
        var line: Int
    }

    /// A mapping's key as written, for a collection composed into a value.
    private struct Key {
        var text: String
        var line: Int
        /// `<<`, written plain.
        var merges: Bool
    }

    /// An open collection.
    private struct Frame {
        var isMapping: Bool
        var line: Int
        var anchor: String?
        /// The nodes it stands for once its aliases are expanded.
        var size = 1
        /// Composed into a value (below `nodeDepth`) rather than into nodes.
        var composesValue: Bool
        var nodes: [YAMLNode] = []
        /// A sequence composed into a value: its items.
        var values: [InventoryValue] = []
        /// A mapping composed into a value: its entries so far, the key whose value comes next, and the mappings
        /// its merge keys bring (merged when it closes: the keys written in it win).
        var entries: [String: InventoryValue] = [:]
        var pendingKey: Key?
        var merged: [[String: InventoryValue]] = []

        /// The next item of a mapping composed into a value is a key.
        var awaitsKey: Bool { isMapping && pendingKey == nil }
    }

    let budget: Int
    /// The levels kept as nodes: 0 composes the whole document into a value, 1 keeps the top mapping's keys and
    /// values as nodes (with their lines) and composes what they hold into values.
    let nodeDepth: Int
    var maxDepth = 256

    private var stack: [Frame] = []
    private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
    private var expanded = 0
    private var root: YAMLNode?

    init(budget: Int, nodeDepth: Int) {
        self.budget = budget
        self.nodeDepth = nodeDepth
    }

    /// The document in `text`; nil when it is empty.
    static func compose(_ text: String, budget: Int, nodeDepth: Int) throws(Failure) -> YAMLNode? {
        let composer = YAMLComposer(budget: budget, nodeDepth: nodeDepth)
        // A variables file in the plain subset most are written in is read without libyaml (a bomb needs aliases,
        // which it leaves to libyaml).
        if nodeDepth == 1, let document = try? YAMLSubsetReader.read(text, maxDepth: composer.maxDepth) {
            return document
        }
        return try composer.composeWithLibYAML(text)
    }

    /// The document in `text` composed from libyaml's events; nil when it is empty.
    func composeWithLibYAML(_ text: String) throws(Failure) -> YAMLNode? {
        var composer = self
        var text = text
        return try composer.run(&text)
    }

    /// Composes `text` from its own UTF-8 storage (a large file is not copied).
    private mutating func run(_ text: inout String) throws(Failure) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(message: "out of memory", line: 1) }
        defer { yaml_parser_delete(&parser) }
        let result: Result<YAMLNode?, Failure> = text.withUTF8 { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            do throws(Failure) {
                try events(&parser, bytes: buffer)
                return .success(root)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private mutating func events(_ parser: inout yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { throw Self.failure(parser, bytes: bytes) }
            defer { yaml_event_delete(&event) }
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw Failure(message: "a second YAML document (after `---`); a file holds one", line: line)
                }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(
                    decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && scalar.plain_implicit != 0
                try count(1, line: line)
                // Inside a value, most scalars need no node: they are a key or an item.
                if scalar.anchor == nil, stack.last?.composesValue == true {
                    try addScalar(text, plain: plain, line: line)
                    continue
                }
                let node = YAMLNode(content: .scalar(text, plain: plain), line: line)
                if let anchor = scalar.anchor { anchors[Self.string(anchor)] = (node, 1) }
                try add(node, size: 1)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor)
                guard let (node, size) = anchors[name] else {
                    throw Failure(message: "the alias *\(name) names no anchor (&\(name)) before it", line: line)
                }
                try count(size, line: line)
                try add(node, size: size, line: line)
            case YAML_SEQUENCE_START_EVENT:
                try open(isMapping: false, line: line, anchor: event.data.sequence_start.anchor)
            case YAML_MAPPING_START_EVENT:
                try open(isMapping: true, line: line, anchor: event.data.mapping_start.anchor)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                try close()
            default:
                continue
            }
        }
    }

    private mutating func open(isMapping: Bool, line: Int, anchor: UnsafeMutablePointer<UInt8>?) throws(Failure) {
        guard stack.count < maxDepth else {
            throw Failure(message: "nested too deeply (more than \(maxDepth) levels)", line: line)
        }
        try count(1, line: line)
        stack.append(
            Frame(
                isMapping: isMapping, line: line, anchor: anchor.map(Self.string),
                composesValue: stack.last?.composesValue ?? false || stack.count >= nodeDepth))
    }

    private mutating func close() throws(Failure) {
        var frame = stack.removeLast()
        let content: YAMLNode.Content
        switch (frame.composesValue, frame.isMapping) {
        case (true, true):
            for entries in frame.merged { frame.entries.merge(entries) { own, _ in own } }
            content = .value(.map(frame.entries))
        case (true, false): content = .value(.list(frame.values))
        case (false, true): content = .mapping(try Self.entries(frame.nodes))
        case (false, false): content = .sequence(frame.nodes)
        }
        let node = YAMLNode(content: content, line: frame.line)
        if let anchor = frame.anchor { anchors[anchor] = (node, frame.size) }
        try add(node, size: frame.size)
    }

    /// Adds `node` (standing for `size` nodes) to the open collection, or makes it the document; `line` is where
    /// an alias to it was written.
    private mutating func add(_ node: YAMLNode, size: Int, line: Int? = nil) throws(Failure) {
        guard let frame = stack.last else {
            root = node
            return
        }
        stack[stack.count - 1].size += size
        if frame.composesValue {
            if frame.awaitsKey, case .scalar(let text, let plain) = node.content {
                stack[stack.count - 1].pendingKey = Key(
                    text: text, line: line ?? node.line, merges: plain && text == "<<")
            } else if frame.awaitsKey {
                stack[stack.count - 1].pendingKey = Key(
                    text: node.value.description, line: line ?? node.line, merges: false)
            } else {
                try addValue(node.value)
            }
        } else {
            stack[stack.count - 1].nodes.append(node)
        }
    }

    /// Adds a scalar without an anchor to the collection composed into a value: a key, or an item.
    private mutating func addScalar(_ text: String, plain: Bool, line: Int) throws(Failure) {
        let index = stack.count - 1
        stack[index].size += 1
        if stack[index].awaitsKey {
            stack[index].pendingKey = Key(text: text, line: line, merges: plain && text == "<<")
        } else {
            try addValue(plain ? YAMLScalar.value(text) : .string(text))
        }
    }

    /// Adds `value` to the collection composed into a value: an item of a sequence, or what its pending key maps
    /// to (a merge key's mappings kept for the close; a key twice refused).
    private mutating func addValue(_ value: InventoryValue) throws(Failure) {
        let index = stack.count - 1
        guard let key = stack[index].pendingKey else {
            stack[index].values.append(value)
            return
        }
        stack[index].pendingKey = nil
        if key.merges {
            switch value {
            case .map(let entries): stack[index].merged.append(entries)
            case .list(let list) where list.allSatisfy({ if case .map = $0 { true } else { false } }):
                stack[index].merged += list.compactMap { if case .map(let entries) = $0 { entries } else { nil } }
            default:
                throw Failure(message: "a merge key (<<) takes a mapping or a list of mappings", line: key.line)
            }
            return
        }
        guard stack[index].entries.updateValue(value, forKey: key.text) == nil else {
            throw Failure(message: "the same key appears twice in one mapping: \(key.text)", line: key.line)
        }
    }

    private mutating func count(_ nodes: Int, line: Int) throws(Failure) {
        expanded += nodes
        if expanded > budget {
            throw Failure(
                message: "stands for more values than its size allows once its aliases are expanded (an alias bomb?)",
                line: line)
        }
    }

    /// A mapping's items as entries: merge keys merged (keys written in the mapping win, then earlier merged
    /// mappings over later ones), a key written twice refused.
    private static func entries(_ items: [YAMLNode]) throws(Failure) -> [(key: YAMLNode, value: YAMLNode)] {
        var own: [(key: YAMLNode, value: YAMLNode)] = []
        var merged: [[(key: YAMLNode, value: YAMLNode)]] = []
        var seen = Set<String>()
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            let (key, value) = (items[index], items[index + 1])
            if case .scalar("<<", plain: true) = key.content {
                guard let sources = mergeSources(value) else {
                    throw Failure(message: "a merge key (<<) takes a mapping or a list of mappings", line: key.line)
                }
                merged += sources
                continue
            }
            if let text = key.text, !seen.insert(text).inserted {
                throw Failure(message: "the same key appears twice in one mapping: \(text)", line: key.line)
            }
            own.append((key, value))
        }
        for entries in merged {
            for entry in entries where entry.key.text.map({ seen.insert($0).inserted }) ?? true {
                own.append(entry)
            }
        }
        return own
    }

    /// The entries a merge key's value brings: a mapping's, or those of each mapping in a list; nil for anything
    /// else. An anchor composed into a value (deeper in the document) brings its entries as values.
    private static func mergeSources(_ node: YAMLNode) -> [[(key: YAMLNode, value: YAMLNode)]]? {
        func mapping(_ node: YAMLNode) -> [(key: YAMLNode, value: YAMLNode)]? {
            switch node.content {
            case .mapping(let entries): entries
            case .value(.map(let map)):
                map.map {
                    (
                        YAMLNode(content: .scalar($0.key, plain: false), line: node.line),
                        YAMLNode(content: .value($0.value), line: node.line)
                    )
                }
            default: nil
            }
        }
        let items: [YAMLNode] =
            switch node.content {
            case .sequence(let items): items
            case .value(.list(let values)): values.map { YAMLNode(content: .value($0), line: node.line) }
            default: [node]
            }
        let sources = items.compactMap(mapping)
        return sources.count == items.count ? sources : nil
    }

    private static func string(_ pointer: UnsafeMutablePointer<UInt8>) -> String { String(cString: pointer) }

    private static func failure(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>) -> Failure {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        if parser.error == YAML_READER_ERROR {
            let offset = min(Int(parser.problem_offset), bytes.count)
            let line = 1 + bytes.prefix(offset).filter { $0 == UInt8(ascii: "\n") }.count
            // Not the text itself: a binary file would be dumped to the terminal.
            return Failure(message: "cannot read this as YAML text: \(problem) at byte \(offset)", line: line)
        }
        let context = parser.context.map { " (\(String(cString: $0)))" } ?? ""
        return Failure(message: "invalid YAML: \(problem)\(context)", line: Int(parser.problem_mark.line) + 1)
    }
}
