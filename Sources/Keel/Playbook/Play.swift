/// Steps applied to the hosts matching a pattern; plays run in order, hosts within a play in parallel.
public struct Play: Sendable {
    public var name: String
    /// Which hosts: a group, host or pattern, as `--limit` takes.
    public var hosts: String
    /// Run every command as root through `sudo -n` (or as `ansible_become_user`).
    public var become: Bool
    /// Hosts per rolling batch; nil runs all hosts at once.
    public var serial: Int?
    /// Stop the whole run as soon as any host fails in this play.
    public var anyErrorsFatal: Bool
    /// A check the rest of the playbook relies on (a pre-flight, a removal guard): it runs on all its hosts
    /// whatever `--limit` selects, and stops the whole run at the first host that fails it.
    public var isGuard: Bool
    public var tags: Set<String>
    public let body: @Sendable (HostContext) throws -> [Step]

    public init(
        _ name: String, on hosts: String, become: Bool = false, serial: Int? = nil, anyErrorsFatal: Bool = false,
        guarding: Bool = false, tags: Set<String> = [],
        @StepBuilder _ body: @escaping @Sendable (HostContext) throws -> [Step]
    ) {
        self.name = name
        self.hosts = hosts
        self.become = become
        self.serial = serial
        self.anyErrorsFatal = anyErrorsFatal || guarding
        isGuard = guarding
        self.tags = tags
        self.body = body
    }
}
