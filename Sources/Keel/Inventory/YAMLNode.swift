/// A YAML node as Keel reads it: where it starts, and a scalar's text or a collection's items (aliases already
/// resolved, merge keys already merged).
struct YAMLNode: Sendable {
    enum Content: Sendable {
        /// The text, and whether it was written plain without a tag (and so is typed: `yes`, `0755`, `1.5`).
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([(key: YAMLNode, value: YAMLNode)])
    }

    var content: Content
    /// The line it starts on, from 1.
    var line: Int

    /// The text of a scalar; nil for a collection.
    var text: String? {
        if case .scalar(let text, _) = content { text } else { nil }
    }
}
