/// A variable's value as YAML 1.1 or Ansible's INI parsing reads it.
public enum InventoryValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case list([InventoryValue])
    case map([String: InventoryValue])
    case null

    /// The value's kind, as error messages name it.
    public var kind: String {
        switch self {
        case .string: "a string"
        case .int: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .list: "a list"
        case .map: "a mapping"
        case .null: "null"
        }
    }

    /// The value written as YAML flow text (`[a, b]`, `{k: v}`).
    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .list(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .map(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .null: "null"
        }
    }
}

extension InventoryValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .list(let items): try container.encode(items)
        case .map(let entries): try container.encode(entries)
        case .null: try container.encodeNil()
        }
    }
}
