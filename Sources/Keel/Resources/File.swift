/// A regular file with exact contents, mode, owner and group; or a path that must not exist.
///
/// Contents are compared by checksum, so an unchanged file is never sent. New contents go into a temporary file
/// created `0600`, get their mode and owner, and are renamed into place.
public struct File: Resource {
    public enum Contents: Sendable {
        case text(String)
        case bytes([UInt8])
        /// Never shown in plans, diffs, logs or events.
        case secret(Secret)

        var bytes: [UInt8] {
            switch self {
            case .text(let text): Array(text.utf8)
            case .bytes(let bytes): bytes
            case .secret(let secret): Array(secret.reveal().utf8)
            }
        }

        var isSecret: Bool { if case .secret = self { true } else { false } }
    }

    public var path: String
    /// nil: the file must be absent.
    public var contents: Contents?
    public var mode: UInt32
    public var owner: String?
    public var group: String?

    public init(
        _ path: String, contents: Contents, mode: UInt32 = 0o644, owner: String? = "root", group: String? = "root"
    ) {
        self.path = path
        self.contents = contents
        self.mode = contents.isSecret ? mode & 0o600 : mode
        self.owner = owner
        self.group = group
    }

    public init(_ path: String, content: String, mode: UInt32 = 0o644, owner: String? = "root", group: String? = "root")
    {
        self.init(path, contents: .text(content), mode: mode, owner: owner, group: group)
    }

    /// A path that must not exist.
    public static func absent(_ path: String) -> File {
        var file = File(path, content: "")
        file.contents = nil
        return file
    }

    public var description: String { "file \(path)" }
    /// A systemd unit file changes what a later service step sees.
    public var affectsOtherResources: Bool { path.hasPrefix("/etc/systemd/") }
    public var isBatchable: Bool { !affectsOtherResources }

    public var probe: String { PathController.probe(path) }
    public var inspects: PathInspection? { PathInspection(path, checksum: contents != nil) }
    public var probeWaits: Bool { false }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let current = try FileAttributes(output, path: path)
        guard let contents else {
            let remove = PathController.run("rm -rf -- \(path)", as: current.account)
            return current.kind == .missing ? [] : [Change("remove", .shell(remove))]
        }
        return try Self.changes(
            path: path, wanted: contents.bytes, isSecret: contents.isSecret, current: current, mode: mode, owner: owner,
            group: group)
    }

    /// Shared with ``Template``: what turns `current` into a file holding `wanted`.
    static func changes(
        path: String, wanted: [UInt8], isSecret: Bool, current: FileAttributes, mode: UInt32, owner: String?,
        group: String?
    ) throws -> [Change] {
        let account = current.account
        try PathController.check(owner: owner, of: path, controlledBy: account)
        let content = ContentChange(
            path: path, desired: wanted, isSecret: isSecret, readAs: account, showsCurrent: current.kind == .file)
        // The upload sets mode and owner too, before the file appears; where another account controls the path,
        // that account writes it.
        let upload = Action.upload(wanted, to: path, mode: mode, owner: owner, group: group, as: account)
        switch current.kind {
        case .missing:
            return [Change("create (\(wanted.count) bytes, mode \(octal(mode)))", upload, content: content)]
        case .directory, .other:
            return [
                Change(
                    "replace the \(current.kind.rawValue) at this path with a file",
                    .shell(PathController.run("rm -rf -- \(path)", as: account)), upload,
                    content: content)
            ]
        case .file:
            // There, a file of another owner is replaced by the controlling account's own.
            if account != "root", let owner, current.owner != owner {
                return [Change("owner \(current.owner ?? "?") → \(owner) (a new file)", upload, content: content)]
            }
            let attributes = try current.attributeChanges(path: path, mode: mode, owner: owner, group: group)
            guard current.sha256 != sha256Hex(wanted) else { return attributes }
            return [Change("contents (\(wanted.count) bytes)", upload, content: content)] + attributes
        }
    }
}
