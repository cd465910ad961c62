import Foundation

/// A variable's text holding Jinja, as Ansible evaluates it: `{{ expression }}`, `{% if %}` … `{% elif %}` …
/// `{% else %}` … `{% endif %}`, `{# comments #}`, and `-` that trims the whitespace on its side.
struct JinjaTemplate: Equatable {
    indirect enum Node: Equatable {
        case text(String)
        case expression(JinjaExpression)
        /// Each branch's condition (nil for `else`) and body.
        case conditional([Branch])
    }

    struct Branch: Equatable {
        var condition: JinjaExpression?
        var body: [Node]
    }

    let nodes: [Node]

    /// Whether `text` holds Jinja at all.
    static func isTemplate(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == UInt8(ascii: "{"),
                byte == UInt8(ascii: "{") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#")
            {
                return true
            }
            previous = byte
        }
        return false
    }

    init(_ text: String) throws(JinjaError) {
        var pieces = try Self.pieces(of: text)[...]
        nodes = try Self.nodes(&pieces, closing: [], depth: 0)
        guard pieces.isEmpty else { throw JinjaError("'{% \(pieces.first!.text) %}' has no opening '{% if %}'") }
    }

    /// The expression when the text is a single `{{ … }}` and nothing else: its value keeps its type (a number,
    /// a list), as Ansible gives it.
    var single: JinjaExpression? {
        if nodes.count == 1, case .expression(let expression) = nodes[0] { expression } else { nil }
    }

    private enum Kind { case text, expression, statement }

    private struct Piece {
        var kind: Kind
        var text: String
    }

    private static func pieces(of text: String) throws(JinjaError) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(text)
        var trimNext = false
        while !rest.isEmpty {
            let open = opening(in: rest)
            var literal = String(rest[..<(open?.lowerBound ?? rest.endIndex)])
            if trimNext { literal = String(literal.drop(while: \.isWhitespace)) }
            guard let open else {
                if !literal.isEmpty { pieces.append(Piece(kind: .text, text: literal)) }
                break
            }
            let opener = rest[open]
            let closer = ["{{": "}}", "{%": "%}", "{#": "#}"][String(opener)]!
            var inner = rest[open.upperBound...]
            if inner.hasPrefix("-") {
                literal = String(literal.reversed().drop(while: \.isWhitespace).reversed())
                inner = inner.dropFirst()
            }
            if !literal.isEmpty { pieces.append(Piece(kind: .text, text: literal)) }
            guard let close = range(of: closer, in: inner) else { throw JinjaError("'\(opener)' is not closed") }
            var body = inner[..<close.lowerBound]
            trimNext = body.hasSuffix("-")
            if trimNext { body = body.dropLast() }
            let trimmed = body.trimmingCharacters(in: .whitespaces)
            switch opener {
            case "{{": pieces.append(Piece(kind: .expression, text: trimmed))
            case "{%": pieces.append(Piece(kind: .statement, text: trimmed))
            default: break
            }
            rest = inner[close.upperBound...]
        }
        return pieces
    }

    /// The first `{{`, `{%` or `{#` in `text`, found in one pass (searching for each of them in the rest of the
    /// text at every piece is quadratic on a long value).
    private static func opening(in text: Substring) -> Range<Substring.Index>? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while let brace = bytes[index...].firstIndex(of: UInt8(ascii: "{")) {
            let after = bytes.index(after: brace)
            guard after < bytes.endIndex else { return nil }
            if [UInt8(ascii: "{"), UInt8(ascii: "%"), UInt8(ascii: "#")].contains(bytes[after]) {
                return brace..<bytes.index(after: after)
            }
            index = after
        }
        return nil
    }

    /// The first `target` (two ASCII bytes) in `text`, searched in its bytes: Foundation's `range(of:)` copies the
    /// rest of the text at every call.
    private static func range(of target: String, in text: Substring) -> Range<Substring.Index>? {
        let pair = Array(target.utf8)
        let bytes = text.utf8
        var index = bytes.startIndex
        while let first = bytes[index...].firstIndex(of: pair[0]) {
            let second = bytes.index(after: first)
            guard second < bytes.endIndex else { return nil }
            if bytes[second] == pair[1] { return first..<bytes.index(after: second) }
            index = second
        }
        return nil
    }

    private static func nodes(_ pieces: inout ArraySlice<Piece>, closing: Set<String>, depth: Int)
        throws(JinjaError) -> [Node]
    {
        try JinjaBudget.check(depth: depth)
        var nodes: [Node] = []
        while let piece = pieces.first {
            switch piece.kind {
            case .text:
                pieces.removeFirst()
                nodes.append(.text(piece.text))
            case .expression:
                pieces.removeFirst()
                nodes.append(.expression(try JinjaExpression.parse(piece.text)))
            case .statement:
                let keyword = String(piece.text.prefix { !$0.isWhitespace })
                if closing.contains(keyword) { return nodes }
                guard keyword == "if" else {
                    throw JinjaError(
                        "'{% \(piece.text) %}' is not supported: Keel evaluates {% if %} … {% endif %} only")
                }
                pieces.removeFirst()
                var branches: [Branch] = []
                var condition: JinjaExpression? = try JinjaExpression.parse(String(piece.text.dropFirst(2)))
                while true {
                    let body = try Self.nodes(&pieces, closing: ["elif", "else", "endif"], depth: depth + 1)
                    branches.append(Branch(condition: condition, body: body))
                    guard let end = pieces.popFirst() else { throw JinjaError("'{% if %}' has no '{% endif %}'") }
                    let word = String(end.text.prefix { !$0.isWhitespace })
                    if word == "endif" { break }
                    if word == "else" {
                        condition = nil
                    } else {
                        condition = try JinjaExpression.parse(String(end.text.dropFirst(4)))
                    }
                }
                nodes.append(.conditional(branches))
            }
        }
        return nodes
    }
}
