import Foundation

/// A value handed to a template.
public enum TemplateValue: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case list([TemplateValue])
    case map([String: TemplateValue])

    var stencilValue: Any {
        switch self {
        case .string(let text): text
        case .int(let number): number
        case .bool(let flag): flag
        case .list(let items): items.map(\.stencilValue)
        case .map(let entries): entries.mapValues(\.stencilValue)
        }
    }
}
