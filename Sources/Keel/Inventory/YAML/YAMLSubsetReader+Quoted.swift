/// The subset reader's flow collections and quoted scalars.
extension YAMLSubsetReader {
    // MARK: Flow collections and quoted scalars, each on one line

    /// A flow sequence or mapping starting at `start`, and where it ends.
    func flow(_ start: Int, _ line: Line, depth: Int) throws(Unsupported) -> (InventoryValue, Int) {
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
    func flowKey(_ start: Int, _ line: Line) throws(Unsupported) -> (String, Int) {
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
    func flowItem(_ start: Int, _ line: Line, depth: Int) throws(Unsupported) -> (InventoryValue, Int) {
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
    mutating func blockQuoted(_ start: Int, _ line: Line, below column: Int) throws(Unsupported) -> String {
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
    func foldedQuoted(_ start: Int, below column: Int) throws(Unsupported) -> (text: String, end: Int) {
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
    func quoted(_ start: Int, _ line: Line) throws(Unsupported) -> (text: String, end: Int) {
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
}
