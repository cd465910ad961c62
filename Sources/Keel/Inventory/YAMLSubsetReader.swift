/// Reads a variables file written in the plain subset of YAML most are written in — block mappings and sequences,
/// plain scalars and flow collections on one line, quoted scalars (folded over several lines too), comments, and
/// `---` and `...` around the document — straight from its bytes, several times faster than libyaml. It gives the
/// nodes, values and lines ``YAMLComposer`` gives with a `nodeDepth` of 1, and declines (``Unsupported``) whatever
/// lies beyond that subset or is not valid YAML, which then goes to libyaml: anchors and aliases, tags, block
/// scalars, plain scalars or flows over several lines, merge keys, a key twice, tabs and directives.
struct YAMLSubsetReader {
    struct Unsupported: Error {}

    /// A line with something on it besides spaces and a comment.
    private struct Line {
        /// Where its content starts (after the indentation) and where the line ends (before its newline).
        var start: Int
        var end: Int
        var indent: Int
        /// From 1.
        var number: Int
        var lineStart: Int { start - indent }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var lines: [Line] = []
    private var index = 0
    private let maxDepth: Int

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

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(Unsupported) {
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
    private static func checkCharacters(_ bytes: UnsafeBufferPointer<UInt8>) throws(Unsupported) {
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
    private func documentMarker(_ line: Line) throws(Unsupported) -> UInt8? {
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

    private mutating func document() throws(Unsupported) -> YAMLNode {
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
    private mutating func nestedValue(column: Int, depth: Int) throws(Unsupported) -> (
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
    private mutating func block(depth: Int, below column: Int) throws(Unsupported) -> InventoryValue {
        let line = lines[index]
        if isEntry(line.start, line) { return try sequence(indent: line.indent, depth: depth) }
        if isKey(at: line.start, line) { return try mapping(column: line.indent, from: line.start, depth: depth) }
        let value = try inlineValue(line.start, line, depth: depth, below: column)
        try endInline(below: column)
        return value
    }

    /// The next line when it holds a value alone (neither an entry nor a key) below a key at `column`.
    private func valueLine(below column: Int) -> Line? {
        guard index < lines.count else { return nil }
        let line = lines[index]
        guard line.indent > column, !isEntry(line.start, line), !isKey(at: line.start, line) else { return nil }
        return line
    }

    private mutating func sequence(indent: Int, depth: Int) throws(Unsupported) -> InventoryValue {
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
    private mutating func mapping(column: Int, from start: Int, depth: Int) throws(Unsupported) -> InventoryValue {
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
    private mutating func endInline(below column: Int) throws(Unsupported) {
        index += 1
        if index < lines.count && lines[index].indent > column { throw Unsupported() }
    }

    // MARK: Keys and values on one line

    private func isEntry(_ position: Int, _ line: Line) -> Bool {
        bytes[position] == UInt8(ascii: "-") && (position + 1 == line.end || bytes[position + 1] == Self.space)
    }

    /// A mapping key at `position`: its text, whether it was plain, and where its `:` ends.
    private func key(at position: Int, _ line: Line) throws(Unsupported) -> (text: String, plain: Bool, end: Int) {
        let first = bytes[position]
        if first == Self.doubleQuote || first == Self.singleQuote {
            let (text, after) = try quoted(position, line)
            let colon = skipSpaces(after, line)
            guard colon < line.end, bytes[colon] == Self.colon, colon + 1 == line.end || bytes[colon + 1] == Self.space
            else { throw Unsupported() }
            return (text, false, colon + 1)
        }
        guard !Self.isIndicator(first) else { throw Unsupported() }
        var cursor = position
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == Self.colon && (cursor + 1 == line.end || bytes[cursor + 1] == Self.space) {
                // libyaml looks for a key's colon within 1024 characters.
                guard cursor - position < 1000 else { throw Unsupported() }
                let text = trimmedString(position, cursor)
                guard text != "<<" else { throw Unsupported() }
                return (text, true, cursor + 1)
            }
            if byte == Self.hash && bytes[cursor - 1] == Self.space { throw Unsupported() }
            if Self.isFlowIndicator(byte) { throw Unsupported() }
            cursor += 1
        }
        throw Unsupported()
    }

    /// Whether a sequence entry's content at `position` is a mapping's first key (`- name: x`).
    private func isKey(at position: Int, _ line: Line) -> Bool {
        let first = bytes[position]
        if first == Self.doubleQuote || first == Self.singleQuote {
            // One over several lines is a value: a key is on one line.
            guard let end = try? quoted(position, line).end else { return false }
            let colon = skipSpaces(end, line)
            return colon < line.end && bytes[colon] == Self.colon
        }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") { return false }
        var cursor = position
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == Self.colon && (cursor + 1 == line.end || bytes[cursor + 1] == Self.space) { return true }
            if byte == Self.hash && bytes[cursor - 1] == Self.space { return false }
            cursor += 1
        }
        return false
    }

    /// Where the value after a key's colon starts on its line; nil when nothing but a comment follows.
    private func inlineValueStart(after colon: Int, _ line: Line) -> Int? {
        let start = skipSpaces(colon, line)
        return start == line.end || bytes[start] == Self.hash ? nil : start
    }

    /// A top-level key's value written on one line (its own, or alone below the key at `column`): a scalar as a
    /// node, a flow collection as a value.
    private mutating func inlineNode(_ start: Int, _ line: Line, below column: Int) throws(Unsupported) -> YAMLNode {
        let first = bytes[start]
        let content: YAMLNode.Content
        if first == Self.doubleQuote || first == Self.singleQuote {
            content = .scalar(try blockQuoted(start, line, below: column), plain: false)
        } else if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            let (value, end) = try flow(start, line, depth: 1)
            try checkLineEnds(end, line)
            content = .value(value)
        } else {
            content = .scalar(try plainScalar(start, line), plain: true)
        }
        try endInline(below: column)
        return YAMLNode(content: content, line: line.number)
    }

    /// A value written on its line (a scalar or a flow collection; a quoted scalar may go on over more lines)
    /// below a key or entry at `column`.
    private mutating func inlineValue(_ start: Int, _ line: Line, depth: Int, below column: Int) throws(Unsupported)
        -> InventoryValue
    {
        let first = bytes[start]
        if first == Self.doubleQuote || first == Self.singleQuote {
            return .string(try blockQuoted(start, line, below: column))
        }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            let (value, end) = try flow(start, line, depth: depth)
            try checkLineEnds(end, line)
            return value
        }
        return YAMLScalar.value(try plainScalar(start, line))
    }

    /// A plain scalar in a block, up to a comment or the line's end.
    private func plainScalar(_ start: Int, _ line: Line) throws(Unsupported) -> String {
        let first = bytes[start]
        guard !Self.isIndicator(first), !isEntry(start, line) else { throw Unsupported() }
        var cursor = start
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == Self.hash && bytes[cursor - 1] == Self.space { break }
            if byte == Self.colon && (cursor + 1 == line.end || bytes[cursor + 1] == Self.space) {
                throw Unsupported()
            }
            cursor += 1
        }
        return trimmedString(start, cursor)
    }

    /// Only spaces and a comment may follow a value on its line.
    private func checkLineEnds(_ position: Int, _ line: Line) throws(Unsupported) {
        guard position < line.end else { return }
        guard bytes[position] == Self.space else { throw Unsupported() }
        let rest = skipSpaces(position, line)
        guard rest == line.end || bytes[rest] == Self.hash else { throw Unsupported() }
    }

    // MARK: Flow collections and quoted scalars, each on one line

    /// A flow sequence or mapping starting at `start`, and where it ends.
    private func flow(_ start: Int, _ line: Line, depth: Int) throws(Unsupported) -> (InventoryValue, Int) {
        guard depth < maxDepth else { throw Unsupported() }
        let isMapping = bytes[start] == UInt8(ascii: "{")
        let close = isMapping ? UInt8(ascii: "}") : UInt8(ascii: "]")
        var items: [InventoryValue] = []
        // Most mappings in a flow are small (`{ option: x, value: y }`): sized so that two entries need no regrowth.
        var entries = [String: InventoryValue](minimumCapacity: isMapping ? 2 : 0)
        var cursor = skipSpaces(start + 1, line)
        guard cursor < line.end else { throw Unsupported() }
        if bytes[cursor] == close { return (isMapping ? .map([:]) : .list([]), cursor + 1) }
        while true {
            if isMapping {
                let (key, afterKey) = try flowKey(cursor, line)
                cursor = skipSpaces(afterKey, line)
                guard cursor < line.end else { throw Unsupported() }
                let value: InventoryValue
                if bytes[cursor] == Self.comma || bytes[cursor] == close {
                    value = .null
                } else {
                    (value, cursor) = try flowItem(cursor, line, depth: depth + 1)
                }
                guard entries.updateValue(value, forKey: key) == nil else { throw Unsupported() }
            } else {
                let (item, end) = try flowItem(cursor, line, depth: depth + 1)
                items.append(item)
                cursor = end
            }
            cursor = skipSpaces(cursor, line)
            guard cursor < line.end else { throw Unsupported() }
            if bytes[cursor] == close { return (isMapping ? .map(entries) : .list(items), cursor + 1) }
            guard bytes[cursor] == Self.comma else { throw Unsupported() }
            cursor = skipSpaces(cursor + 1, line)
            // A trailing comma, or an empty entry.
            guard cursor < line.end, bytes[cursor] != close, bytes[cursor] != Self.comma else { throw Unsupported() }
        }
    }

    /// A flow mapping's key and where its colon ends.
    private func flowKey(_ start: Int, _ line: Line) throws(Unsupported) -> (String, Int) {
        let first = bytes[start]
        if first == Self.doubleQuote || first == Self.singleQuote {
            let (text, after) = try quoted(start, line)
            let colon = skipSpaces(after, line)
            guard colon < line.end, bytes[colon] == Self.colon else { throw Unsupported() }
            return (text, colon + 1)
        }
        guard !Self.isIndicator(first), first != UInt8(ascii: "-") else { throw Unsupported() }
        var cursor = start
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == Self.colon {
                guard cursor + 1 < line.end, bytes[cursor + 1] == Self.space else { throw Unsupported() }
                let text = trimmedString(start, cursor)
                guard text != "<<" else { throw Unsupported() }
                return (text, cursor + 1)
            }
            if Self.isFlowIndicator(byte) || byte == Self.hash { throw Unsupported() }
            cursor += 1
        }
        throw Unsupported()
    }

    /// An item of a flow collection (or a flow mapping's value) and where it ends.
    private func flowItem(_ start: Int, _ line: Line, depth: Int) throws(Unsupported) -> (InventoryValue, Int) {
        let first = bytes[start]
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") { return try flow(start, line, depth: depth) }
        if first == Self.doubleQuote || first == Self.singleQuote {
            let (text, end) = try quoted(start, line)
            return (.string(text), end)
        }
        if first == UInt8(ascii: "-") {
            // `-1` is a scalar; a dash before a space or an indicator is not.
            guard start + 1 < line.end, bytes[start + 1] != Self.space, !Self.isFlowIndicator(bytes[start + 1])
            else { throw Unsupported() }
        } else if Self.isIndicator(first) {
            throw Unsupported()
        }
        var cursor = start
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == Self.comma || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { break }
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") || byte == Self.colon || byte == Self.hash {
                throw Unsupported()
            }
            cursor += 1
        }
        return (YAMLScalar.value(trimmedString(start, cursor)), cursor)
    }

    /// A quoted scalar as a block's value below a key or entry at `column`: closed on its line, or folded over
    /// more lines as YAML folds them (the current line becomes the last it covers); only a comment may follow it.
    private mutating func blockQuoted(_ start: Int, _ line: Line, below column: Int) throws(Unsupported) -> String {
        if let (text, end) = try? quoted(start, line) {
            try checkLineEnds(end, line)
            return text
        }
        let (text, end) = try foldedQuoted(start, below: column)
        while index + 1 < lines.count && lines[index + 1].start < end { index += 1 }
        var lineEnd = end
        while lineEnd < bytes.count && bytes[lineEnd] != Self.newline { lineEnd += 1 }
        try checkLineEnds(end, Line(start: end, end: lineEnd, indent: 0, number: 0))
        return text
    }

    /// A quoted scalar over several lines, and where it ends: the spaces around each line break go, a break folds
    /// into a space (n + 1 breaks into n newlines), an escaped break (`\` at a line's end) into nothing; every line
    /// it goes on is indented deeper than `column`.
    private func foldedQuoted(_ start: Int, below column: Int) throws(Unsupported) -> (text: String, end: Int) {
        let quote = bytes[start]
        var text: [UInt8] = []
        var cursor = start + 1
        /// Moves past the line break at `cursor` and the empty lines after it, to the next line's content; the
        /// number of empty lines.
        func nextLine() throws(Unsupported) -> Int {
            var empty = 0
            var lineStart = cursor + 1
            cursor = lineStart
            while true {
                while cursor < bytes.count && bytes[cursor] == Self.space { cursor += 1 }
                guard cursor < bytes.count else { throw Unsupported() }
                guard bytes[cursor] == Self.newline else { break }
                empty += 1
                lineStart = cursor + 1
                cursor = lineStart
            }
            guard cursor - lineStart > column else { throw Unsupported() }
            return empty
        }
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == quote {
                if quote == Self.singleQuote && cursor + 1 < bytes.count && bytes[cursor + 1] == Self.singleQuote {
                    text.append(quote)
                    cursor += 2
                    continue
                }
                return (String(decoding: text, as: UTF8.self), cursor + 1)
            }
            if quote == Self.doubleQuote && byte == UInt8(ascii: "\\") {
                guard cursor + 1 < bytes.count else { throw Unsupported() }
                if bytes[cursor + 1] == Self.newline {
                    cursor += 1
                    text += repeatElement(Self.newline, count: try nextLine())
                    continue
                }
                guard let replacement = Self.escapes[bytes[cursor + 1]] else { throw Unsupported() }
                text.append(replacement)
                cursor += 2
                continue
            }
            if byte == Self.space || byte == Self.newline {
                var blanks = cursor
                while blanks < bytes.count && bytes[blanks] == Self.space { blanks += 1 }
                guard blanks < bytes.count, bytes[blanks] == Self.newline else {
                    text += bytes[cursor..<blanks]
                    cursor = blanks
                    continue
                }
                cursor = blanks
                let empty = try nextLine()
                text += empty == 0 ? [Self.space] : Array(repeating: Self.newline, count: empty)
                continue
            }
            text.append(byte)
            cursor += 1
        }
        throw Unsupported()
    }

    /// A single- or double-quoted scalar that closes on its line, and where it ends; a double-quoted one may hold
    /// the escapes `\\ \" \/ \n \t \r`.
    private func quoted(_ start: Int, _ line: Line) throws(Unsupported) -> (text: String, end: Int) {
        let quote = bytes[start]
        var unescaped: [UInt8] = []  // appended in place: a copy at each escape is quadratic on a long line
        var escaped = false
        var run = start + 1
        var cursor = run
        while cursor < line.end {
            let byte = bytes[cursor]
            if byte == quote {
                if quote == Self.singleQuote && cursor + 1 < line.end && bytes[cursor + 1] == Self.singleQuote {
                    unescaped += bytes[run...cursor]
                    escaped = true
                    cursor += 2
                    run = cursor
                    continue
                }
                guard escaped else { return (string(run, cursor), cursor + 1) }
                unescaped += bytes[run..<cursor]
                return (String(decoding: unescaped, as: UTF8.self), cursor + 1)
            }
            if quote == Self.doubleQuote && byte == UInt8(ascii: "\\") {
                guard cursor + 1 < line.end, let replacement = Self.escapes[bytes[cursor + 1]] else {
                    throw Unsupported()
                }
                unescaped += bytes[run..<cursor]
                unescaped.append(replacement)
                escaped = true
                cursor += 2
                run = cursor
                continue
            }
            cursor += 1
        }
        throw Unsupported()
    }

    // MARK: Bytes

    private func skipSpaces(_ position: Int, _ line: Line) -> Int {
        var cursor = position
        while cursor < line.end && bytes[cursor] == Self.space { cursor += 1 }
        return cursor
    }

    private func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// The text from `start` to `end` without the spaces before `end`.
    private func trimmedString(_ start: Int, _ end: Int) -> String {
        var stop = end
        while stop > start && bytes[stop - 1] == Self.space { stop -= 1 }
        return string(start, stop)
    }

    private static let newline = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let hash = UInt8(ascii: "#")
    private static let colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ",")
    private static let doubleQuote = UInt8(ascii: "\"")
    private static let singleQuote = UInt8(ascii: "'")
    /// `, [ ] { }` (a switch rather than a set: it is asked for every byte of a key).
    private static func isFlowIndicator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"): true
        default: false
        }
    }

    /// What a plain key or scalar may not start with: YAML's indicators but `-`, which is checked apart (`-1` is a
    /// scalar, `- ` an entry).
    private static func isIndicator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"),
            UInt8(ascii: "!"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""),
            UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"):
            true
        default: isFlowIndicator(byte)
        }
    }
    private static let escapes: [UInt8: UInt8] = [
        UInt8(ascii: "\\"): UInt8(ascii: "\\"), UInt8(ascii: "\""): UInt8(ascii: "\""),
        UInt8(ascii: "/"): UInt8(ascii: "/"),
        UInt8(ascii: "n"): 10, UInt8(ascii: "t"): 9, UInt8(ascii: "r"): 13,
    ]
}
