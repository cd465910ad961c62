/// A Jinja expression as Ansible's variables use them: names, attributes and subscripts, literals, arithmetic,
/// `~` concatenation, comparisons, `and`/`or`/`not`, filters (`x | default('a')`) and method calls
/// (`cluster_vip.split('.')`).
indirect enum JinjaExpression: Equatable {
    case literal(InventoryValue)
    case list([JinjaExpression])
    case name(String)
    case attribute(JinjaExpression, String)
    case index(JinjaExpression, JinjaExpression)
    case call(JinjaExpression, String, [JinjaExpression])
    case filter(JinjaExpression, String, [JinjaExpression])
    case unary(String, JinjaExpression)
    case binary(String, JinjaExpression, JinjaExpression)
    /// `a if condition else b`.
    case conditional(JinjaExpression, condition: JinjaExpression, otherwise: JinjaExpression?)

    /// Parses `text` whole.
    static func parse(_ text: String) throws(JinjaError) -> JinjaExpression {
        let tokens = try Token.scan(text)
        guard tokens.count <= JinjaBudget.maxTokens else {
            throw JinjaError("an expression of more than \(JinjaBudget.maxTokens) tokens")
        }
        var parser = Parser(tokens: tokens)
        let expression = try parser.expression()
        guard parser.position == parser.tokens.count else {
            throw JinjaError("unexpected '\(parser.tokens[parser.position].text)'")
        }
        return expression
    }

    enum Token: Equatable {
        case name(String)
        case number(InventoryValue)
        case string(String)
        case symbol(String)

        var text: String {
            switch self {
            case .name(let name): name
            case .number(let value): value.description
            case .string(let string): "'\(string)'"
            case .symbol(let symbol): symbol
            }
        }

        private static let symbols = ["//", "==", "!=", "<=", ">="] + "+-*/%~|.,:()[]<>".map(String.init)

        static func scan(_ text: String) throws(JinjaError) -> [Token] {
            var tokens: [Token] = []
            var rest = Substring(text)
            while let first = rest.first {
                if first.isWhitespace {
                    rest = rest.dropFirst()
                } else if first.isLetter || first == "_" {
                    let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                    tokens.append(.name(String(name)))
                    rest = rest.dropFirst(name.count)
                } else if first.isASCII && first.isNumber {
                    let digits = rest.prefix { ($0.isASCII && $0.isNumber) || $0 == "." || $0 == "_" }
                    let plain = digits.filter { $0 != "_" }
                    if let number = Int(plain) {
                        tokens.append(.number(.int(number)))
                    } else if let number = Double(plain) {
                        tokens.append(.number(.double(number)))
                    } else {
                        throw JinjaError("'\(digits)' is not a number")
                    }
                    rest = rest.dropFirst(digits.count)
                } else if first == "'" || first == "\"" {
                    var string = ""
                    var index = rest.index(after: rest.startIndex)
                    var closed = false
                    while index < rest.endIndex {
                        let character = rest[index]
                        if character == first {
                            closed = true
                            break
                        }
                        if character == "\\", rest.index(after: index) < rest.endIndex {
                            index = rest.index(after: index)
                            let escaped = rest[index]
                            string.append(["n": "\n", "t": "\t"][escaped] ?? escaped)
                        } else {
                            string.append(character)
                        }
                        index = rest.index(after: index)
                    }
                    guard closed else { throw JinjaError("a string is not closed") }
                    tokens.append(.string(string))
                    rest = rest[rest.index(after: index)...]
                } else if let symbol = symbols.first(where: { rest.hasPrefix($0) }) {
                    tokens.append(.symbol(symbol))
                    rest = rest.dropFirst(symbol.count)
                } else {
                    throw JinjaError("unexpected '\(first)'")
                }
            }
            return tokens
        }
    }

    /// Precedence climbing, loosest first: conditional, or, and, not, comparison, `~`, `+ -`, `* / // %`, unary
    /// minus, `**`, filters, postfix (attribute, subscript, call), primary.
    struct Parser {
        let tokens: [Token]
        var position = 0
        /// How deeply the parser has recursed: `(`, `[`, `not`, unary minus and `else` each go one level down.
        private var depth = 0

        init(tokens: [Token]) { self.tokens = tokens }

        /// Parses one level further down, refusing to go beyond ``JinjaBudget/maxDepth``.
        private mutating func nested(_ parse: (inout Parser) throws(JinjaError) -> JinjaExpression)
            throws(JinjaError) -> JinjaExpression
        {
            depth += 1
            defer { depth -= 1 }
            try JinjaBudget.check(depth: depth)
            return try parse(&self)
        }

        private var next: Token? { position < tokens.count ? tokens[position] : nil }

        private mutating func take(_ symbol: String) -> Bool {
            guard next == .symbol(symbol) || next == .name(symbol) else { return false }
            position += 1
            return true
        }

        private mutating func expect(_ symbol: String) throws(JinjaError) {
            guard take(symbol) else {
                throw JinjaError("expected '\(symbol)'" + (next.map { ", found '\($0.text)'" } ?? " at the end"))
            }
        }

        mutating func expression() throws(JinjaError) -> JinjaExpression {
            try nested { parser throws(JinjaError) in
                let value = try parser.or()
                guard parser.take("if") else { return value }
                let condition = try parser.or()
                let otherwise = parser.take("else") ? try parser.expression() : nil
                return .conditional(value, condition: condition, otherwise: otherwise)
            }
        }

        /// Operands of the next level joined by any of `symbols`, from the left.
        private mutating func joined(
            by symbols: [String], _ operand: (inout Parser) throws(JinjaError) -> JinjaExpression
        ) throws(JinjaError) -> JinjaExpression {
            var left = try operand(&self)
            while let symbol = symbols.first(where: { take($0) }) { left = .binary(symbol, left, try operand(&self)) }
            return left
        }

        private mutating func or() throws(JinjaError) -> JinjaExpression {
            try joined(by: ["or"]) { parser throws(JinjaError) in try parser.and() }
        }

        private mutating func and() throws(JinjaError) -> JinjaExpression {
            try joined(by: ["and"]) { parser throws(JinjaError) in try parser.not() }
        }

        private mutating func not() throws(JinjaError) -> JinjaExpression {
            take("not") ? .unary("not", try nested { parser throws(JinjaError) in try parser.not() }) : try comparison()
        }

        private mutating func comparison() throws(JinjaError) -> JinjaExpression {
            var left = try concatenation()
            while true {
                if let symbol = ["==", "!=", "<=", ">=", "<", ">", "in"].first(where: { take($0) }) {
                    left = .binary(symbol, left, try concatenation())
                } else if next == .name("not"), position + 1 < tokens.count, tokens[position + 1] == .name("in") {
                    position += 2
                    left = .unary("not", .binary("in", left, try concatenation()))
                } else {
                    return left
                }
            }
        }

        private mutating func concatenation() throws(JinjaError) -> JinjaExpression {
            try joined(by: ["~"]) { parser throws(JinjaError) in try parser.additive() }
        }

        private mutating func additive() throws(JinjaError) -> JinjaExpression {
            try joined(by: ["+", "-"]) { parser throws(JinjaError) in try parser.multiplicative() }
        }

        private mutating func multiplicative() throws(JinjaError) -> JinjaExpression {
            try joined(by: ["*", "//", "/", "%"]) { parser throws(JinjaError) in try parser.unary() }
        }

        private mutating func unary() throws(JinjaError) -> JinjaExpression {
            take("-") ? .unary("-", try nested { parser throws(JinjaError) in try parser.unary() }) : try filtered()
        }

        private mutating func filtered() throws(JinjaError) -> JinjaExpression {
            var value = try postfix()
            while take("|") {
                guard case .name(let name) = next else { throw JinjaError("expected a filter's name after '|'") }
                position += 1
                value = .filter(value, name, next == .symbol("(") ? try arguments() : [])
            }
            return value
        }

        private mutating func postfix() throws(JinjaError) -> JinjaExpression {
            var value = try primary()
            while true {
                if take(".") {
                    guard case .name(let name) = next else { throw JinjaError("expected a name after '.'") }
                    position += 1
                    value = next == .symbol("(") ? .call(value, name, try arguments()) : .attribute(value, name)
                } else if take("[") {
                    value = .index(value, try expression())
                    try expect("]")
                } else {
                    return value
                }
            }
        }

        private mutating func arguments() throws(JinjaError) -> [JinjaExpression] {
            try expect("(")
            var arguments: [JinjaExpression] = []
            while !take(")") {
                if !arguments.isEmpty { try expect(",") }
                arguments.append(try expression())
            }
            return arguments
        }

        private mutating func primary() throws(JinjaError) -> JinjaExpression {
            guard let token = next else { throw JinjaError("an expression ends too early") }
            position += 1
            switch token {
            case .number(let value): return .literal(value)
            case .string(let string): return .literal(.string(string))
            case .name("true"), .name("True"): return .literal(.bool(true))
            case .name("false"), .name("False"): return .literal(.bool(false))
            case .name("none"), .name("None"): return .literal(.null)
            case .name(let name): return .name(name)
            case .symbol("("):
                let inner = try expression()
                try expect(")")
                return inner
            case .symbol("["):
                var items: [JinjaExpression] = []
                while !take("]") {
                    if !items.isEmpty { try expect(",") }
                    items.append(try expression())
                }
                return .list(items)
            case .symbol(let symbol): throw JinjaError("unexpected '\(symbol)'")
            }
        }
    }
}
