import Synchronization

/// Reads typed values out of a host's resolved variables, failing with the file and line of a wrong value.
///
/// Each accessor takes the names a setting goes by, first match wins (`["keel_port", "ansible_port"]`). Jinja in a
/// value (`"{{ patroni_cluster_name }}"`) is evaluated when the value is read, against the host's variables, once
/// per variable and reader, within a ``JinjaBudget`` per read.
public struct VariableReader: Sendable {
    public let host: String
    public let variables: [String: Variable]
    private let evaluatedValues = EvaluatedValues()

    public init(host: String, variables: [String: Variable]) {
        self.host = host
        self.variables = variables
    }

    /// The first of `names` that is set (and not null) as written, with the name it was found under.
    public func written(_ names: [String]) -> (name: String, variable: Variable)? {
        for name in names {
            if let variable = variables[name], variable.value != .null { return (name, variable) }
        }
        return nil
    }

    /// The first of `names` that is set, its Jinja evaluated, with the name it was found under.
    public func lookup(_ names: [String]) throws(InventoryError) -> (name: String, variable: Variable)? {
        guard let (name, variable) = written(names) else { return nil }
        let value = try evaluated(name, variable, within: [], budget: JinjaBudget())
        return value == .null ? nil : (name, Variable(evaluated: value, at: variable.origin))
    }

    /// The value of `variable` with every template in it evaluated; `within` holds the variables being evaluated
    /// around it, so that one referring to itself is refused.
    private func evaluated(_ name: String, _ variable: Variable, within: Set<String>, budget: JinjaBudget)
        throws(InventoryError) -> InventoryValue
    {
        guard variable.holdsTemplate else { return variable.value }
        if let known = evaluatedValues[name] { return known }
        let inside = within.union([name])
        let evaluator = JinjaEvaluator(budget: budget) { other throws(JinjaError) in
            guard let found = variables[other] else { throw JinjaError.undefined(other) }
            guard !inside.contains(other) else { throw JinjaError("'\(other)' refers to itself") }
            do throws(InventoryError) {
                return try evaluated(other, found, within: inside, budget: budget)
            } catch {
                throw JinjaError("\(other) (\(found.origin)): \(error.message)")
            }
        }
        func render(_ value: InventoryValue) throws(JinjaError) -> InventoryValue {
            switch value {
            case .string(let text) where JinjaTemplate.isTemplate(text): return try evaluator.render(text)
            case .list(let items):
                var rendered: [InventoryValue] = []
                for item in items { rendered.append(try render(item)) }
                return .list(rendered)
            case .map(let entries):
                var rendered = entries
                for (key, item) in entries where item.holdsTemplate { rendered[key] = try render(item) }
                return .map(rendered)
            default: return value
            }
        }
        do {
            let value = try render(variable.value)
            evaluatedValues[name] = value
            return value
        } catch {
            throw InventoryError(
                "\(name) for host \(host) cannot be evaluated: \(error.message)", at: variable.origin,
                hint: "write the value without Jinja, or with the names and filters Keel evaluates (docs/deploy.md)")
        }
    }

    public func string(_ names: [String]) throws(InventoryError) -> String? {
        guard let (name, variable) = try lookup(names) else { return nil }
        switch variable.value {
        case .string(let text): return text
        case .int, .double, .bool: return variable.value.description
        default: throw mismatch(name, variable, expected: "a string")
        }
    }

    public func int(_ names: [String], in range: ClosedRange<Int>? = nil) throws(InventoryError) -> Int? {
        guard let (name, variable) = try lookup(names) else { return nil }
        let number: Int? =
            switch variable.value {
            case .int(let value): value
            case .string(let text): Int(text.trimmingCharacters(in: .whitespaces))
            default: nil
            }
        func outside(_ range: ClosedRange<Int>, _ value: String) -> InventoryError {
            InventoryError(
                "\(name) for host \(host) is \(value), outside \(range.lowerBound)…\(range.upperBound)",
                at: variable.origin)
        }
        guard let number else {
            // Digits too many for an integer are out of range, not "not an integer".
            if case .string(let text) = variable.value, let range,
                case let digits = text.trimmingCharacters(in: .whitespaces).drop(while: { $0 == "-" }),
                !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber)
            {
                throw outside(range, text)
            }
            throw mismatch(name, variable, expected: "an integer")
        }
        if let range, !range.contains(number) { throw outside(range, String(number)) }
        return number
    }

    /// A boolean, accepting what Ansible's `bool` filter accepts: true/false, yes/no, on/off, 1/0, in any case.
    public func bool(_ names: [String]) throws(InventoryError) -> Bool? {
        guard let (name, variable) = try lookup(names) else { return nil }
        switch variable.value {
        case .bool(let flag): return flag
        case .int(1): return true
        case .int(0): return false
        case .string(let text):
            switch text.lowercased() {
            case "true", "yes", "on", "1", "y", "t": return true
            case "false", "no", "off", "0", "n", "f": return false
            default: break
            }
        default: break
        }
        throw mismatch(name, variable, expected: "a boolean (true or false)")
    }

    private func mismatch(_ name: String, _ variable: Variable, expected: String) -> InventoryError {
        let shown = Variable.isSecret(name: name) ? "***" : quotedForDisplay(variable.value.description)
        return InventoryError(
            "\(name) for host \(host) must be \(expected), not \(variable.value.kind) \(shown)", at: variable.origin,
            hint: "fix the value of \(name) at that line")
    }
}

/// The values a reader's variables evaluated to, shared by its copies: each variable is evaluated once.
private final class EvaluatedValues: Sendable {
    private let values = Mutex<[String: InventoryValue]>([:])

    subscript(name: String) -> InventoryValue? {
        get { values.withLock { $0[name] } }
        set { values.withLock { $0[name] = newValue } }
    }
}

extension InventoryValue {
    /// Whether a string in it holds Jinja.
    var holdsTemplate: Bool {
        switch self {
        case .string(let text): JinjaTemplate.isTemplate(text)
        case .list(let items): items.contains(where: \.holdsTemplate)
        case .map(let entries): entries.values.contains(where: \.holdsTemplate)
        default: false
        }
    }
}
