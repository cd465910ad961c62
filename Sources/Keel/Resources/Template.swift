import Foundation

/// A file rendered from a template in `templates/` with the host's variables, its facts (`facts.*`),
/// `inventory_hostname`, `groups` (group → host names) and `hostvars` (host → variables), plus `values`.
public struct Template: Resource {
    public var name: String
    public var path: String
    public var mode: UInt32
    public var owner: String?
    public var group: String?
    /// Extra values for this template only; they win over inventory variables.
    public var values: [String: TemplateValue]
    /// The rendered file holds passwords: it is kept at most 0600 and never shown in a diff.
    public var isSecret: Bool
    public var library: TemplateLibrary

    public init(
        _ name: String, to path: String, mode: UInt32 = 0o644, owner: String? = "root", group: String? = "root",
        values: [String: TemplateValue] = [:], isSecret: Bool = false, library: TemplateLibrary = .locate()
    ) {
        self.name = name
        self.path = path
        self.mode = isSecret ? mode & 0o600 : mode
        self.owner = owner
        self.group = group
        self.values = values
        self.isSecret = isSecret
        self.library = library
    }

    public var description: String { "template \(path)" }
    /// A systemd unit file changes what a later service step sees.
    public var affectsOtherResources: Bool { path.hasPrefix("/etc/systemd/") }
    public var isBatchable: Bool { !affectsOtherResources }

    public var probe: String { PathController.probe(path) }
    public var inspects: PathInspection? { PathInspection(path, checksum: true) }
    public var probeWaits: Bool { false }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let wanted = try render(for: host)
        return try File.changes(
            path: path, wanted: Array(wanted.utf8), isSecret: isSecret, current: try FileAttributes(output, path: path),
            mode: mode, owner: owner, group: group)
    }

    /// The rendered text for `host`.
    public func render(for host: HostContext) throws -> String {
        var context = host.templateValues.context
        for (key, value) in values { context[key] = value.stencilValue }
        return try library.render(name, context: context)
    }
}

extension InventoryValue {
    var stencilValue: Any {
        switch self {
        case .string(let text): text
        case .int(let number): number
        case .double(let number): number
        case .bool(let flag): flag
        case .list(let items): items.map(\.stencilValue)
        case .map(let entries): entries.mapValues(\.stencilValue)
        case .null: ""
        }
    }
}
