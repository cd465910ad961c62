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

extension Playbook {
    /// The same plays, each stopping the whole run at the first host that fails in it.
    public func stoppingAtFirstFailure() -> Playbook {
        var playbook = self
        playbook.plays = plays.map { play in
            var play = play
            play.anyErrorsFatal = true
            return play
        }
        return playbook
    }
}

/// A named, ordered list of plays: what `keel apply` runs.
public struct Playbook: Sendable {
    public var name: String
    public var summary: String
    public var plays: [Play]

    /// With `become`, every play runs its commands as root (or `ansible_become_user`).
    public init(_ name: String, summary: String, become: Bool = false, @PlayBuilder plays: () -> [Play]) {
        self.name = name
        self.summary = summary
        self.plays = plays().map { play in
            var play = play
            play.become = play.become || become
            return play
        }
    }
}

/// Builds a playbook's list of plays.
@resultBuilder
public enum PlayBuilder {
    public static func buildExpression(_ play: Play) -> [Play] { [play] }
    /// Plays a component made together: `PgBackRestPlays.setup(model)`.
    public static func buildExpression(_ plays: [Play]) -> [Play] { plays }
    public static func buildBlock(_ parts: [Play]...) -> [Play] { parts.flatMap { $0 } }
    public static func buildOptional(_ plays: [Play]?) -> [Play] { plays ?? [] }
    public static func buildEither(first plays: [Play]) -> [Play] { plays }
    public static func buildEither(second plays: [Play]) -> [Play] { plays }
    public static func buildArray(_ parts: [[Play]]) -> [Play] { parts.flatMap { $0 } }
}
