/// A directory with a mode, owner and group (its parents are created as needed).
public struct Directory: Resource {
    public var path: String
    public var mode: UInt32
    public var owner: String?
    public var group: String?

    public init(_ path: String, mode: UInt32 = 0o755, owner: String? = "root", group: String? = "root") {
        self.path = path
        self.mode = mode
        self.owner = owner
        self.group = group
    }

    public var description: String { "directory \(path)" }
    public var isBatchable: Bool { true }

    public var probe: String { PathController.probe(path) }
    public var inspects: PathInspection? { PathInspection(path, checksum: false) }
    public var probeWaits: Bool { false }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let current = try FileAttributes(output, path: path)
        try PathController.check(owner: owner, of: path, controlledBy: current.account)
        switch current.kind {
        case .directory:
            return try current.attributeChanges(path: path, mode: mode, owner: owner, group: group)
        case .missing:
            guard current.account == "root" else {
                // The account that controls it makes it, and so owns it.
                var command = PathController.makeDirectory(path, mode: mode, owner: nil, group: nil)
                if let group { command = "\(command) && chgrp \(group) \(path)" }
                return [
                    Change("create (mode \(octal(mode)))", .shell(PathController.run(command, as: current.account)))
                ]
            }
            return [Change("create (mode \(octal(mode)))", .directory(path, mode: mode, owner: owner, group: group))]
        case .file, .other:
            throw ResourceError("\(path) exists but is not a directory; remove it or choose another path")
        }
    }
}
