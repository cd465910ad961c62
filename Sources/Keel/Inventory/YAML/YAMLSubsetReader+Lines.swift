/// The subset reader's keys and plain values on one line, and its byte-level helpers.
extension YAMLSubsetReader {
    // MARK: Keys and values on one line

    func isEntry(_ position: Int, _ line: Line) -> Bool {
        bytes[position] == UInt8(ascii: "-") && (position + 1 == line.end || bytes[position + 1] == Self.space)
    }

    /// A mapping key at `position`: its text, whether it was plain, and where its `:` ends.
    func key(at position: Int, _ line: Line) throws(Unsupported) -> (text: String, plain: Bool, end: Int) {
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
    func isKey(at position: Int, _ line: Line) -> Bool {
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
    func inlineValueStart(after colon: Int, _ line: Line) -> Int? {
        let start = skipSpaces(colon, line)
        return start == line.end || bytes[start] == Self.hash ? nil : start
    }

    /// A top-level key's value written on one line (its own, or alone below the key at `column`): a scalar as a
    /// node, a flow collection as a value.
    mutating func inlineNode(_ start: Int, _ line: Line, below column: Int) throws(Unsupported) -> YAMLNode {
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
    mutating func inlineValue(_ start: Int, _ line: Line, depth: Int, below column: Int) throws(Unsupported)
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
    func plainScalar(_ start: Int, _ line: Line) throws(Unsupported) -> String {
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
    func checkLineEnds(_ position: Int, _ line: Line) throws(Unsupported) {
        guard position < line.end else { return }
        guard bytes[position] == Self.space else { throw Unsupported() }
        let rest = skipSpaces(position, line)
        guard rest == line.end || bytes[rest] == Self.hash else { throw Unsupported() }
    }

    // MARK: Bytes

    func skipSpaces(_ position: Int, _ line: Line) -> Int {
        var cursor = position
        while cursor < line.end && bytes[cursor] == Self.space { cursor += 1 }
        return cursor
    }

    func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// The text from `start` to `end` without the spaces before `end`.
    func trimmedString(_ start: Int, _ end: Int) -> String {
        var stop = end
        while stop > start && bytes[stop - 1] == Self.space { stop -= 1 }
        return string(start, stop)
    }

    static let newline = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let hash = UInt8(ascii: "#")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
    /// `, [ ] { }` (a switch rather than a set: it is asked for every byte of a key).
    static func isFlowIndicator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"): true
        default: false
        }
    }

    /// What a plain key or scalar may not start with: YAML's indicators but `-`, which is checked apart (`-1` is a
    /// scalar, `- ` an entry).
    static func isIndicator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"),
            UInt8(ascii: "!"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""),
            UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"):
            true
        default: isFlowIndicator(byte)
        }
    }
    static let escapes: [UInt8: UInt8] = [
        UInt8(ascii: "\\"): UInt8(ascii: "\\"), UInt8(ascii: "\""): UInt8(ascii: "\""),
        UInt8(ascii: "/"): UInt8(ascii: "/"),
        UInt8(ascii: "n"): 10, UInt8(ascii: "t"): 9, UInt8(ascii: "r"): 13,
    ]
}
