/// Privilege escalation: runs a command as another user through `sudo -n`.
///
/// `-n` makes sudo fail at once instead of waiting for a password, so a host without passwordless sudo gives a
/// clear non-zero result rather than a hang. No password ever goes on the command line.
public struct Become: Sendable, Hashable {
    public var user: String

    public init(user: String = "root") { self.user = user }

    /// `command` wrapped so that `/bin/sh` runs it as ``user``.
    public func wrap(_ command: String) -> String {
        "sudo -n -H -u \(shellQuote(user)) -- /bin/sh -c \(shellQuote(command))"
    }
}
