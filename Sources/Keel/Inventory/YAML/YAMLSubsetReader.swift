/// Reads a variables file written in the plain subset of YAML most are written in — block mappings and sequences,
/// plain scalars and flow collections on one line, quoted scalars (folded over several lines too), comments, and
/// `---` and `...` around the document — straight from its bytes, several times faster than libyaml. It gives the
/// nodes, values and lines ``YAMLComposer`` gives with a `nodeDepth` of 1, and declines (``Unsupported``) whatever
/// lies beyond that subset or is not valid YAML, which then goes to libyaml: anchors and aliases, tags, block
/// scalars, plain scalars or flows over several lines, merge keys, a key twice, tabs and directives.
struct YAMLSubsetReader {
    struct Unsupported: Error {}

    /// A line with something on it besides spaces and a comment.
    struct Line {
        /// Where its content starts (after the indentation) and where the line ends (before its newline).
        var start: Int
        var end: Int
        var indent: Int
        /// From 1.
        var number: Int
        var lineStart: Int { start - indent }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var lines: [Line] = []
    var index = 0
    let maxDepth: Int

    /// The document in `text`, its top mapping's keys and values as nodes and what they hold as values.
    static func read(_ text: String, maxDepth: Int) throws(Unsupported) -> YAMLNode {
        var text = text
        let result: Result<YAMLNode, Unsupported> = text.withUTF8 { buffer in
            do throws(Unsupported) {
                var reader = try YAMLSubsetReader(buffer, maxDepth: maxDepth)
                return .success(try reader.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(Unsupported) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        try Self.checkCharacters(bytes)
        var lineStart = 0
        var number = 0
        var started = false
        var ended = false
        while lineStart < bytes.count {
            number += 1
            var end = lineStart
            while end < bytes.count && bytes[end] != Self.newline { end += 1 }
            let line = Line(start: lineStart, end: end, indent: 0, number: number)
            let start = skipSpaces(lineStart, line)
            if start < end && bytes[start] != Self.hash {
                // `---` may open the document and `...` close it (as Ansible's files do), each on a line of its own.
                guard !ended, start > lineStart || bytes[start] != UInt8(ascii: "%") else { throw Unsupported() }
                if start == lineStart, let marker = try documentMarker(line) {
                    if marker == UInt8(ascii: "-") {
                        guard lines.isEmpty, !started else { throw Unsupported() }
                        started = true
                    } else {
                        ended = true
                    }
                } else {
                    lines.append(Line(start: start, end: end, indent: start - lineStart, number: number))
                }
            }
            lineStart = end + 1
        }
    }

    /// Only what libyaml reads as printable text and plain line breaks: no tab, carriage return or other control
    /// character, no byte order mark, no line or paragraph separator.
    static func checkCharacters(_ bytes: UnsafeBufferPointer<UInt8>) throws(Unsupported) {
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if (byte >= 0x20 && byte < 0x7F) || byte == newline {
                position += 1
                continue
            }
            if byte < 0x80 {
                if (byte < 0x20 && byte != newline) || byte == 0x7F { throw Unsupported() }
            } else {
                let next = position + 1 < bytes.count ? bytes[position + 1] : 0
                let after = position + 2 < bytes.count ? bytes[position + 2] : 0
                switch (byte, next) {
                case (0xC2, 0x80...0x9F): throw Unsupported()
                case (0xE2, 0x80) where after == 0xA8 || after == 0xA9: throw Unsupported()
                case (0xEF, 0xBB) where after == 0xBF: throw Unsupported()
                case (0xEF, 0xBF) where after >= 0xBE: throw Unsupported()
                default: break
                }
            }
            position += 1
        }
    }

    /// `-` for a line that starts a document (`---`), `.` for one that ends it (`...`); a marker with anything but
    /// a comment after it is not read here.
    func documentMarker(_ line: Line) throws(Unsupported) -> UInt8? {
        let start = line.start
        guard line.end - start >= 3 else { return nil }
        let first = bytes[start]
        guard first == UInt8(ascii: "-") || first == UInt8(ascii: "."), bytes[start + 1] == first,
            bytes[start + 2] == first, start + 3 == line.end || bytes[start + 3] == Self.space
        else { return nil }
        try checkLineEnds(start + 3, line)
        return first
    }

    // MARK: The document and its block collections

    mutating func document() throws(Unsupported) -> YAMLNode {
        guard let first = lines.first, !isEntry(first.start, first) else { throw Unsupported() }
        let column = first.indent
        var entries: [(key: YAMLNode, value: YAMLNode)] = []
        var seen = Set<String>()
        while index < lines.count {
            let line = lines[index]
            guard line.indent == column, !isEntry(line.start, line) else { throw Unsupported() }
            let key = try self.key(at: line.start, line)
            guard seen.insert(key.text).inserted else { throw Unsupported() }
            let value: YAMLNode
            if let inline = inlineValueStart(after: key.end, line) {
                value = try inlineNode(inline, line, below: column)
            } else {
                index += 1
                if let below = valueLine(below: column) {
                    value = try inlineNode(below.start, below, below: column)
                } else if let nested = try nestedValue(column: column, depth: 1) {
                    value = YAMLNode(content: .value(nested.value), line: nested.line)
                } else {
                    value = YAMLNode(content: .scalar("", plain: true), line: line.number)
                }
            }
            entries.append((YAMLNode(content: .scalar(key.text, plain: key.plain), line: line.number), value))
        }
        return YAMLNode(content: .mapping(entries), line: first.number)
    }

    /// The collection below a key with nothing after it (whose line is done), and the line it starts on; nil when
    /// there is none (the value is null). A key at `column` may have a sequence at the same column.
    mutating func nestedValue(column: Int, depth: Int) throws(Unsupported) -> (
        value: InventoryValue, line: Int
    )? {
        guard index < lines.count else { return nil }
        let line = lines[index]
        if line.indent > column {
            return (try block(depth: depth, below: column), line.number)
        }
        if line.indent == column && isEntry(line.start, line) {
            return (try sequence(indent: column, depth: depth), line.number)
        }
        return nil
    }

    /// The block collection starting at the current line, or the value written alone on it, below a key or entry
    /// at `column`.
    mutating func block(depth: Int, below column: Int) throws(Unsupported) -> InventoryValue {
        let line = lines[index]
        if isEntry(line.start, line) { return try sequence(indent: line.indent, depth: depth) }
        if isKey(at: line.start, line) { return try mapping(column: line.indent, from: line.start, depth: depth) }
        let value = try inlineValue(line.start, line, depth: depth, below: column)
        try endInline(below: column)
        return value
    }

    /// The next line when it holds a value alone (neither an entry nor a key) below a key at `column`.
    func valueLine(below column: Int) -> Line? {
        guard index < lines.count else { return nil }
        let line = lines[index]
        guard line.indent > column, !isEntry(line.start, line), !isKey(at: line.start, line) else { return nil }
        return line
    }

    mutating func sequence(indent: Int, depth: Int) throws(Unsupported) -> InventoryValue {
        guard depth < maxDepth else { throw Unsupported() }
        var items: [InventoryValue] = []
        while index < lines.count, lines[index].indent == indent, isEntry(lines[index].start, lines[index]) {
            let line = lines[index]
            let start = skipSpaces(line.start + 1, line)
            if start == line.end || bytes[start] == Self.hash {
                // What an empty entry holds is indented deeper than its dash.
                index += 1
                items.append(
                    index < lines.count && lines[index].indent > indent
                        ? try block(depth: depth + 1, below: indent) : .null)
            } else if isEntry(start, line) {
                throw Unsupported()
            } else if isKey(at: start, line) {
                items.append(try mapping(column: start - line.lineStart, from: start, depth: depth + 1))
            } else {
                items.append(try inlineValue(start, line, depth: depth + 1, below: indent))
                try endInline(below: indent)
            }
        }
        return .list(items)
    }

    /// A block mapping whose keys are at `column`, the first of them at `start` on the current line (after a
    /// sequence's dash, or at the line's start).
    mutating func mapping(column: Int, from start: Int, depth: Int) throws(Unsupported) -> InventoryValue {
        guard depth < maxDepth else { throw Unsupported() }
        var entries = [String: InventoryValue](minimumCapacity: 2)
        var position = start
        while true {
            let line = lines[index]
            let key = try self.key(at: position, line)
            let value: InventoryValue
            if let inline = inlineValueStart(after: key.end, line) {
                value = try inlineValue(inline, line, depth: depth + 1, below: column)
                try endInline(below: column)
            } else {
                index += 1
                value = try nestedValue(column: column, depth: depth + 1)?.value ?? .null
            }
            guard entries.updateValue(value, forKey: key.text) == nil else { throw Unsupported() }
            guard index < lines.count, lines[index].indent == column, !isEntry(lines[index].start, lines[index])
            else { break }
            position = lines[index].start
        }
        return .map(entries)
    }

    /// Moves past a line whose value was written on it; a deeper line after it would continue that value.
    mutating func endInline(below column: Int) throws(Unsupported) {
        index += 1
        if index < lines.count && lines[index].indent > column { throw Unsupported() }
    }
}
