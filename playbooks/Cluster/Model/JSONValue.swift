import Foundation
import Keel

/// A JSON value, for settings whose shape is open (Patroni's dynamic configuration, PostgreSQL parameters): kept
/// typed from the inventory to the REST API, never turned into strings and guessed back.
public enum JSONValue: Codable, Sendable, Equatable {
    case object([String: JSONValue]), array([JSONValue]), bool(Bool), integer(Int), number(Double), string(String), null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let members): try container.encode(members)
        case .array(let items): try container.encode(items)
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// A scalar as PostgreSQL and Patroni read it (`200` and `"200"` are the same setting); nil for the rest.
    public var text: String? {
        switch self {
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): value
        case .object, .array, .null: nil
        }
    }

    /// The members of an object (empty for anything else).
    public var members: [String: JSONValue] { if case .object(let members) = self { members } else { [:] } }

    /// Compact JSON, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// The value as block YAML nested `indent` spaces deep; every string (keys too) through ``yamlQuote(_:)``.
    public func yaml(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return members.sorted { $0.key < $1.key }.map { key, value in
            if case .object = value { return "\(pad)\(yamlQuote(key)):\n" + value.yaml(indent: indent + 2) }
            return "\(pad)\(yamlQuote(key)): \(value.yamlFlow)\n"
        }.joined()
    }

    /// The value on one line, in YAML's flow style.
    private var yamlFlow: String {
        switch self {
        case .string(let value): yamlQuote(value)
        case .array(let items): "[" + items.map(\.yamlFlow).joined(separator: ", ") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { "\(yamlQuote($0.key)): \($0.value.yamlFlow)" }
                .joined(separator: ", ") + "}"
        case .bool, .integer, .number, .null: json
        }
    }
}
