import Foundation

/// Evaluates Jinja in variables as Ansible does, for the forms postgresql_cluster's variables use: names,
/// attributes, subscripts, arithmetic, comparisons, `and`/`or`/`not`, `x if c else y`, string methods (`split`,
/// `lower`, `upper`, `strip`, `replace`, `startswith`, `endswith`) and filters (`default`/`d`, `int`, `float`,
/// `string`, `bool`, `lower`, `upper`, `trim`, `replace`, `join`, `length`, `first`, `last`).
///
/// Every evaluation is bounded by a ``JinjaBudget``: depth, steps, and the length of the texts it builds.
struct JinjaEvaluator {
    /// The value of a variable, its own templates evaluated; throws ``JinjaError/undefined(_:)`` when unset.
    let lookup: (String) throws(JinjaError) -> InventoryValue
    let budget: JinjaBudget

    init(budget: JinjaBudget = JinjaBudget(), lookup: @escaping (String) throws(JinjaError) -> InventoryValue) {
        self.budget = budget
        self.lookup = lookup
    }

    /// The value of `text`: a single `{{ … }}` keeps its type, anything else becomes text.
    func render(_ text: String) throws(JinjaError) -> InventoryValue {
        let template = try JinjaTemplate(text)
        if let single = template.single { return try evaluate(single) }
        var output = ""
        try render(template.nodes, into: &output)
        return .string(output)
    }

    private func render(_ nodes: [JinjaTemplate.Node], into output: inout String) throws(JinjaError) {
        for node in nodes {
            switch node {
            case .text(let text): try Self.append(text, to: &output)
            case .expression(let expression): try Self.append(Self.text(try evaluate(expression)), to: &output)
            case .conditional(let branches):
                for branch in branches {
                    if let condition = branch.condition, !Self.truth(try evaluate(condition)) { continue }
                    try render(branch.body, into: &output)
                    break
                }
            }
        }
    }

    private static func append(_ text: String, to output: inout String) throws(JinjaError) {
        try JinjaBudget.check(length: output.utf8.count + text.utf8.count)
        output += text
    }

    func evaluate(_ expression: JinjaExpression) throws(JinjaError) -> InventoryValue {
        try budget.enter()
        defer { budget.leave() }
        switch expression {
        case .literal(let value): return value
        case .list(let items):
            var values: [InventoryValue] = []
            for item in items { values.append(try evaluate(item)) }
            return .list(values)
        case .name(let name): return try lookup(name)
        case .attribute(let base, let name): return try member(try evaluate(base), .string(name), named: name)
        case .index(let base, let key):
            let index = try evaluate(key)
            return try member(try evaluate(base), index, named: Self.text(index))
        case .call(let base, let method, let arguments):
            return try call(method, on: try evaluate(base), try values(arguments))
        case .filter(let base, let name, let arguments):
            return try filter(name, base, arguments)
        case .unary("not", let operand): return .bool(!Self.truth(try evaluate(operand)))
        case .unary(_, let operand):
            switch try evaluate(operand) {
            case .int(let number): return .int(try Self.checked("-", 0.subtractingReportingOverflow(number)))
            case .double(let number): return .double(-number)
            case let other: throw JinjaError("cannot negate \(other.kind)")
            }
        case .binary("and", let left, let right):
            let value = try evaluate(left)
            return Self.truth(value) ? try evaluate(right) : value
        case .binary("or", let left, let right):
            let value = try evaluate(left)
            return Self.truth(value) ? value : try evaluate(right)
        case .binary(let symbol, let left, let right):
            return try Self.operate(symbol, try evaluate(left), try evaluate(right))
        case .conditional(let value, let condition, let otherwise):
            if Self.truth(try evaluate(condition)) { return try evaluate(value) }
            return try otherwise.map { expression throws(JinjaError) in try evaluate(expression) } ?? .string("")
        }
    }

    private func values(_ expressions: [JinjaExpression]) throws(JinjaError) -> [InventoryValue] {
        var values: [InventoryValue] = []
        for expression in expressions { values.append(try evaluate(expression)) }
        return values
    }

    /// `base.name` or `base[key]`: a mapping's entry, a list's or a string's item (from the end when negative).
    private func member(_ base: InventoryValue, _ key: InventoryValue, named name: String) throws(JinjaError)
        -> InventoryValue
    {
        switch (base, key) {
        case (.map(let entries), _):
            guard let value = entries[Self.text(key)] else { throw JinjaError.undefined(name) }
            return value
        case (.list(let items), .int(let index)):
            let position = index < 0 ? items.count + index : index
            guard items.indices.contains(position) else { throw JinjaError("index \(index) is out of range") }
            return items[position]
        case (.string(let text), .int(let index)):
            let characters = Array(text)
            let position = index < 0 ? characters.count + index : index
            guard characters.indices.contains(position) else { throw JinjaError("index \(index) is out of range") }
            return .string(String(characters[position]))
        default:
            throw JinjaError("\(base.kind) has no '\(name)'")
        }
    }

    private func call(_ method: String, on base: InventoryValue, _ arguments: [InventoryValue]) throws(JinjaError)
        -> InventoryValue
    {
        guard case .string(let text) = base else { throw JinjaError("\(base.kind) has no method \(method)()") }
        let strings = arguments.map(Self.text)
        switch (method, strings.count) {
        case ("split", 0):
            return .list(text.split(whereSeparator: \.isWhitespace).map { .string(String($0)) })
        case ("split", 1) where !strings[0].isEmpty:
            return .list(text.components(separatedBy: strings[0]).map { .string($0) })
        case ("lower", 0): return .string(text.lowercased())
        case ("upper", 0): return .string(text.uppercased())
        case ("strip", 0): return .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case ("replace", 2): return .string(try Self.replacing(strings[0], with: strings[1], in: text))
        case ("startswith", 1): return .bool(text.hasPrefix(strings[0]))
        case ("endswith", 1): return .bool(text.hasSuffix(strings[0]))
        default: throw JinjaError("the method \(method)() with \(strings.count) argument(s) is not supported")
        }
    }

    private func filter(_ name: String, _ base: JinjaExpression, _ arguments: [JinjaExpression])
        throws(JinjaError) -> InventoryValue
    {
        let given = try values(arguments)
        if name == "default" || name == "d" {
            let fallback = given.first ?? .string("")
            do {
                let value = try evaluate(base)
                return given.count > 1 && Self.truth(given[1]) && !Self.truth(value) ? fallback : value
            } catch  where error.undefinedName != nil {
                return fallback
            }
        }
        let value = try evaluate(base)
        switch (name, value) {
        case ("int", _):
            return .int(Self.integer(value) ?? given.first.flatMap(Self.integer) ?? 0)
        case ("float", _):
            return .double(Self.number(value) ?? 0)
        case ("string", _): return .string(Self.text(value))
        case ("bool", _):
            return .bool(["true", "yes", "on", "1", "y", "t"].contains(Self.text(value).lowercased()))
        case ("lower", _): return .string(Self.text(value).lowercased())
        case ("upper", _): return .string(Self.text(value).uppercased())
        case ("trim", _): return .string(Self.text(value).trimmingCharacters(in: .whitespacesAndNewlines))
        case ("replace", _) where given.count == 2:
            return .string(try Self.replacing(Self.text(given[0]), with: Self.text(given[1]), in: Self.text(value)))
        case ("join", .list(let items)):
            let texts = items.map(Self.text)
            let separator = given.first.map(Self.text) ?? ""
            try JinjaBudget.check(
                length: texts.reduce(0) { $0 + $1.utf8.count } + max(texts.count - 1, 0) * separator.utf8.count)
            return .string(texts.joined(separator: separator))
        case ("length", .list(let items)), ("count", .list(let items)): return .int(items.count)
        case ("length", .map(let entries)), ("count", .map(let entries)): return .int(entries.count)
        case ("length", .string(let text)), ("count", .string(let text)): return .int(text.count)
        case ("first", .list(let items)):
            guard let first = items.first else { throw JinjaError("first of an empty list") }
            return first
        case ("last", .list(let items)):
            guard let last = items.last else { throw JinjaError("last of an empty list") }
            return last
        case ("max", .list(let items)), ("min", .list(let items)):
            return try Self.extreme(of: items, largest: name == "max")
        default:
            throw JinjaError("the filter '\(name)' on \(value.kind) is not supported")
        }
    }

    /// The largest (or smallest) of `items`: numbers by value, text by its characters, as Python compares them.
    private static func extreme(of items: [InventoryValue], largest: Bool) throws(JinjaError) -> InventoryValue {
        let filter = largest ? "max" : "min"
        guard let first = items.first else { throw JinjaError("\(filter) of an empty list") }
        let numbers = items.compactMap { item -> Double? in
            switch item {
            case .int(let number): Double(number)
            case .double(let number): number
            default: nil
            }
        }
        let texts = items.compactMap { item -> String? in if case .string(let text) = item { text } else { nil } }
        var best = (index: 0, item: first)
        if numbers.count == items.count {
            for (index, number) in numbers.enumerated()
            where largest ? number > numbers[best.index] : number < numbers[best.index] {
                best = (index, items[index])
            }
        } else if texts.count == items.count {
            for (index, text) in texts.enumerated() where largest ? text > texts[best.index] : text < texts[best.index]
            {
                best = (index, items[index])
            }
        } else {
            throw JinjaError("\(filter) of a list that mixes numbers with other values")
        }
        return best.item
    }

    private static func operate(_ symbol: String, _ left: InventoryValue, _ right: InventoryValue)
        throws(JinjaError) -> InventoryValue
    {
        switch (symbol, left, right) {
        case ("~", _, _): return .string(try concatenated(text(left), text(right)))
        case ("==", _, _): return .bool(equal(left, right))
        case ("!=", _, _): return .bool(!equal(left, right))
        case ("in", _, .string(let text)): return .bool(text.contains(Self.text(left)))
        case ("in", _, .list(let items)): return .bool(items.contains { equal($0, left) })
        case ("in", _, .map(let entries)): return .bool(entries[text(left)] != nil)
        case ("+", .string(let a), .string(let b)): return .string(try concatenated(a, b))
        case ("+", .list(let a), .list(let b)):
            try JinjaBudget.check(length: a.count + b.count)
            return .list(a + b)
        case ("+", .int(let a), .int(let b)): return .int(try checked(symbol, a.addingReportingOverflow(b)))
        case ("-", .int(let a), .int(let b)): return .int(try checked(symbol, a.subtractingReportingOverflow(b)))
        case ("*", .int(let a), .int(let b)): return .int(try checked(symbol, a.multipliedReportingOverflow(by: b)))
        case ("//", .int(let a), .int(let b)) where b != 0:
            let quotient = try checked(symbol, a.dividedReportingOverflow(by: b))
            return .int(quotient * b != a && (a < 0) != (b < 0) ? quotient - 1 : quotient)
        case ("%", .int(let a), .int(let b)) where b != 0:
            let remainder = try checked(symbol, a.remainderReportingOverflow(dividingBy: b))
            return .int(remainder != 0 && (remainder < 0) != (b < 0) ? remainder + b : remainder)
        default: break
        }
        guard let a = number(left), let b = number(right) else {
            throw JinjaError("cannot apply '\(symbol)' to \(left.kind) and \(right.kind)")
        }
        switch symbol {
        case "+": return .double(a + b)
        case "-": return .double(a - b)
        case "*": return .double(a * b)
        case "/" where b != 0: return .double(a / b)
        case "//" where b != 0: return .double((a / b).rounded(.down))
        case "<": return .bool(a < b)
        case "<=": return .bool(a <= b)
        case ">": return .bool(a > b)
        case ">=": return .bool(a >= b)
        default: throw JinjaError("cannot apply '\(symbol)' to \(a) and \(b)")
        }
    }

    /// The result of integer arithmetic, or an error where Python's unbounded integers would leave 64 bits
    /// (never a silent wrap into a value that looks valid).
    private static func checked(_ symbol: String, _ result: (partialValue: Int, overflow: Bool)) throws(JinjaError)
        -> Int
    {
        guard !result.overflow else { throw JinjaError("'\(symbol)' gives an integer beyond 64 bits") }
        return result.partialValue
    }

    private static func concatenated(_ left: String, _ right: String) throws(JinjaError) -> String {
        try JinjaBudget.check(length: left.utf8.count + right.utf8.count)
        return left + right
    }

    /// `text` with every `target` replaced, its length checked before it is built.
    private static func replacing(_ target: String, with replacement: String, in text: String) throws(JinjaError)
        -> String
    {
        guard !target.isEmpty else { return text }
        let occurrences = text.components(separatedBy: target).count - 1
        try JinjaBudget.check(
            length: text.utf8.count + occurrences * (replacement.utf8.count - target.utf8.count))
        return text.replacingOccurrences(of: target, with: replacement)
    }

    private static func equal(_ left: InventoryValue, _ right: InventoryValue) -> Bool {
        if let a = number(left), let b = number(right), left.isNumber, right.isNumber { return a == b }
        return left == right
    }

    private static func number(_ value: InventoryValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }

    /// What Jinja's `int` makes of the value: an integer, a float's whole part, a numeric string; nil otherwise.
    private static func integer(_ value: InventoryValue) -> Int? {
        switch value {
        case .int(let number): return number
        case .double(let number) where number.isFinite && abs(number) < 9e18: return Int(number)
        case .bool(let flag): return flag ? 1 : 0
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let number = Int(trimmed) { return number }
            return Double(trimmed).flatMap { $0.isFinite && abs($0) < 9e18 ? Int($0) : nil }
        default: return nil
        }
    }

    /// Python's truth: empty, zero, false and none are false.
    static func truth(_ value: InventoryValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .int(let number): number != 0
        case .double(let number): number != 0
        case .string(let text): !text.isEmpty
        case .list(let items): !items.isEmpty
        case .map(let entries): !entries.isEmpty
        }
    }

    /// The value as Jinja writes it into text (Python's `str`).
    static func text(_ value: InventoryValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "True" : "False"
        case .null: "None"
        case .int, .double: value.description
        case .list(let items): "[" + items.map(representation).joined(separator: ", ") + "]"
        case .map(let entries):
            "{" + entries.keys.sorted().map { "'\($0)': \(representation(entries[$0]!))" }.joined(separator: ", ")
                + "}"
        }
    }

    /// Python's `repr`, as lists and mappings show their items.
    private static func representation(_ value: InventoryValue) -> String {
        if case .string(let text) = value { return "'\(text)'" }
        return Self.text(value)
    }
}

extension InventoryValue {
    fileprivate var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }
}
