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
        var text = ""
        write(to: &text)
        return text
    }

    /// Appends ``description`` to `text`, without a string for each item.
    public func write(to text: inout String) {
        switch self {
        case .string(let string): text += string
        case .int(let number): text += String(number)
        case .double(let number): text += String(number)
        case .bool(let flag): text += String(flag)
        case .list(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += ", " }
                item.write(to: &text)
            }
            text += "]"
        case .map(let entries):
            text += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { text += ", " }
                text += key
                text += ": "
                entries[key]?.write(to: &text)
            }
            text += "}"
        case .null: text += "null"
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
