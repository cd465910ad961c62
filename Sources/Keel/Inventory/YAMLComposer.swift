// The libyaml that Yams builds, used for its events: Keel composes its own nodes from them, in one pass, in time
// proportional to the text, with each node's line, and with bounds on what a small file may stand for.
internal import CYaml

/// Builds the node tree of one YAML document from libyaml's events.
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

    private struct Frame {
        var isMapping: Bool
        var items: [YAMLNode] = []
        var line: Int
        var anchor: String?
        var size = 1
    }

    let budget: Int
    var maxDepth = 256

    private var stack: [Frame] = []
    private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
    private var expanded = 0
    private var root: YAMLNode?

    init(budget: Int) { self.budget = budget }

    /// The document in `text`; nil when it is empty.
    static func compose(_ text: String, budget: Int) throws(Failure) -> YAMLNode? {
        var composer = YAMLComposer(budget: budget)
        return try composer.run(Array(text.utf8))
    }

    private mutating func run(_ bytes: [UInt8]) throws(Failure) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(message: "out of memory", line: 1) }
        defer { yaml_parser_delete(&parser) }
        let result: Result<YAMLNode?, Failure> = bytes.withUnsafeBufferPointer { buffer in
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
                try add(YAMLNode(content: .scalar(text, plain: plain), line: line), size: 1, anchor: scalar.anchor)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor)
                guard let (node, size) = anchors[name] else {
                    throw Failure(message: "the alias *\(name) names no anchor (&\(name)) before it", line: line)
                }
                try add(node, size: size, anchor: nil, counted: false, line: line)
            case YAML_SEQUENCE_START_EVENT:
                try open(isMapping: false, line: line, anchor: event.data.sequence_start.anchor)
            case YAML_MAPPING_START_EVENT:
                try open(isMapping: true, line: line, anchor: event.data.mapping_start.anchor)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                let frame = stack.removeLast()
                let content: YAMLNode.Content =
                    frame.isMapping ? .mapping(try Self.entries(frame.items)) : .sequence(frame.items)
                try add(YAMLNode(content: content, line: frame.line), size: frame.size, anchor: nil, counted: false)
                if let anchor = frame.anchor, let node = lastAdded { anchors[anchor] = (node, frame.size) }
            default:
                continue
            }
        }
    }

    private var lastAdded: YAMLNode? { stack.last.map { $0.items.last } ?? root }

    private mutating func open(isMapping: Bool, line: Int, anchor: UnsafeMutablePointer<UInt8>?) throws(Failure) {
        guard stack.count < maxDepth else {
            throw Failure(message: "nested too deeply (more than \(maxDepth) levels)", line: line)
        }
        stack.append(Frame(isMapping: isMapping, line: line, anchor: anchor.map(Self.string)))
        try count(1, line: line)
    }

    /// Adds `node` (standing for `size` nodes) to the open collection, or makes it the document.
    private mutating func add(
        _ node: YAMLNode, size: Int, anchor: UnsafeMutablePointer<UInt8>?, counted: Bool = true, line: Int? = nil
    ) throws(Failure) {
        if counted { try count(size, line: node.line) } else if let line { try count(size, line: line) }
        if let anchor { anchors[Self.string(anchor)] = (node, size) }
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].items.append(node)
            stack[stack.count - 1].size += size
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
        var merged: [YAMLNode] = []
        var seen = Set<String>()
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            let (key, value) = (items[index], items[index + 1])
            if case .scalar("<<", plain: true) = key.content {
                switch value.content {
                case .mapping: merged.append(value)
                case .sequence(let list)
                where list.allSatisfy({ if case .mapping = $0.content { true } else { false } }):
                    merged += list
                default:
                    throw Failure(message: "a merge key (<<) takes a mapping or a list of mappings", line: key.line)
                }
                continue
            }
            if let text = key.text, !seen.insert(text).inserted {
                throw Failure(message: "the same key appears twice in one mapping: \(text)", line: key.line)
            }
            own.append((key, value))
        }
        for mapping in merged {
            guard case .mapping(let entries) = mapping.content else { continue }
            for entry in entries where entry.key.text.map({ seen.insert($0).inserted }) ?? true {
                own.append(entry)
            }
        }
        return own
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
