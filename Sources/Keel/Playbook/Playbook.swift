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
