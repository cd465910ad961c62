/// One difference between what a host has and what the playbook wants, as the plan shows it.
public struct Change: Sendable, Equatable {
    /// What will change, in a few words (`mode 0644 → 0600`, `install nginx-light`).
    public var summary: String
    /// The commands apply will run for it, as `--check -v` shows them (never holding secrets).
    public var commands: [String]
    /// For file contents: the path and the wanted bytes, so a unified diff can be shown.
    public var content: ContentChange?

    public init(_ summary: String, commands: [String] = [], content: ContentChange? = nil) {
        self.summary = summary
        self.commands = commands
        self.content = content
    }
}

/// New contents for a file, kept so `--diff` can show them against what is there.
public struct ContentChange: Sendable, Equatable {
    public var path: String
    public var desired: [UInt8]
    /// Secret contents are never shown, not even as a diff.
    public var isSecret: Bool

    public init(path: String, desired: [UInt8], isSecret: Bool) {
        self.path = path
        self.desired = desired
        self.isSecret = isSecret
    }
}
