/// A YAML node as Keel reads it: where it starts, and a scalar's text or a collection's items (aliases already
/// resolved, merge keys already merged).
struct YAMLNode: Sendable {
    enum Content: Sendable {
        /// The text, and whether it was written plain without a tag (and so is typed: `yes`, `0755`, `1.5`).
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([(key: YAMLNode, value: YAMLNode)])
        /// A collection composed straight into its value, below the depth kept as nodes.
        case value(InventoryValue)
    }

    var content: Content
    /// The line it starts on, from 1.
    var line: Int

    /// The text of a scalar; nil for a collection.
    var text: String? {
        if case .scalar(let text, _) = content { text } else { nil }
    }

    /// The node's value, with plain scalars typed as YAML 1.1 resolves them (`yes` is true, `0755` is 493);
    /// quoted ones stay strings.
    var value: InventoryValue {
        switch content {
        case .scalar(let text, let plain):
            return plain ? YAMLScalar.value(text) : .string(text)
        case .sequence(let items):
            return .list(items.map(\.value))
        case .mapping(let entries):
            var map = [String: InventoryValue](minimumCapacity: entries.count)
            for (key, item) in entries { map[key.text ?? key.value.description] = item.value }
            return .map(map)
        case .value(let value):
            return value
        }
    }
}
