/// One difference between what a host has and what the playbook wants: what the plan shows, and the actions
/// apply takes for it. The plan prints the actions themselves, so it cannot promise one thing and do another.
public struct Change: Sendable {
    /// What will change, in a few words (`mode 0644 → 0600`, `install nginx-light`).
    public var summary: String
    /// What apply does, in order.
    public var actions: [Action]
    /// For file contents: the path and the wanted bytes, so a unified diff can be shown.
    public var content: ContentChange?

    public init(_ summary: String, _ actions: Action..., content: ContentChange? = nil) {
        self.init(summary, actions: actions, content: content)
    }

    public init(_ summary: String, actions: [Action], content: ContentChange? = nil) {
        self.summary = summary
        self.actions = actions
        self.content = content
    }
}

/// New contents for a file, kept so `--diff` can show them against what is there.
public struct ContentChange: Sendable, Equatable {
    public var path: String
    public var desired: [UInt8]
    /// Secret contents are never shown, not even as a diff.
    public var isSecret: Bool
    /// The account the current contents are read as, for a diff (see ``PathController``).
    public var readAs: String
    /// Whether the current contents are shown: not when the path is a link or anything but a regular file.
    public var showsCurrent: Bool

    public init(path: String, desired: [UInt8], isSecret: Bool, readAs: String = "root", showsCurrent: Bool = true) {
        self.path = path
        self.desired = desired
        self.isSecret = isSecret
        self.readAs = readAs
        self.showsCurrent = showsCurrent
    }
}
