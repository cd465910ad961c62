/// The account that controls where a path lives: the owner of the deepest directory (or link) above it that root
/// does not own, or root when root owns them all. Keel writes, removes, re-modes and reads a path as that account:
/// an account that can rename or replace a directory on the way (postgres in its home, its `.ssh`) could otherwise
/// swap in a link and make root write, chown or print a file it chose.
///
/// The accounts other than root cannot make an entry owned by root, so the answer cannot turn to root between the
/// probe that finds it and the change that uses it.
public enum PathController {
    /// A probe snippet printing `account=NAME` for `path`: the owner of the deepest directory above it that root
    /// does not own (missing ones count for nothing). Run as root, `[ -O ]` (a shell builtin) answers for a
    /// directory root owns, and `stat` runs only for a link or another owner's: a host starts processes slowly, and
    /// a play probes many paths. Run as another account, one `stat` reads them all.
    static func probe(_ path: String) -> String {
        var directories: [String] = []
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            directories.append(prefix)
        }
        guard !directories.isEmpty else { return "echo account=root" }
        let quoted = directories.map(shellQuote).joined(separator: " ")
        return "a=root; if [ -O / ]; then for d in \(quoted); do "
            + "if [ -L \"$d\" ] || { [ -e \"$d\" ] && [ ! -O \"$d\" ]; }; then o=$(stat -c %U -- \"$d\"); "
            + "[ \"$o\" = root ] || a=$o; fi; done; "
            + "else for o in $(stat -c %U -- \(quoted) 2>/dev/null); do [ \"$o\" = root ] || a=$o; done; fi; "
            + "echo \"account=$a\""
    }

    /// `chown`'s argument for `owner` and `group` (`postgres:postgres`, `:ssl-cert`).
    static func ownership(_ owner: String?, _ group: String?) -> String {
        (owner ?? "") + (group.map { ":" + $0 } ?? "")
    }

    /// The chown of what root just made at `path`: for root's own (owner and group root, or unset), run only when
    /// the shell's own tests (no process started) find it is not so already: a setgid directory hands its group
    /// down, and a run that is not root owns what it makes.
    static func chown(_ path: String, owner: String?, group: String?) -> ShellCommand {
        let chown: ShellCommand = "chown \(ownership(owner, group)) \(path)"
        guard (owner ?? "root") == "root", (group ?? "root") == "root" else { return chown }
        let owned: ShellCommand = owner == nil ? "" : " && [ -O \(path) ]"
        let grouped: ShellCommand = group == nil ? "" : " && [ -G \(path) ]"
        return "{ { [ -O / ]\(owned)\(grouped); } || \(chown); }"
    }

    /// The directory `path` is in: its text before the last `/` (empty right under `/`, and for a bare name).
    static func directory(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The command root makes directory `path` (and its missing parents) with.
    static func makeDirectory(_ path: String, mode: UInt32, owner: String?, group: String?) -> ShellCommand {
        let make: ShellCommand = "mkdir -p -m \(raw: octal(mode)) -- \(path)"
        return settle(directory: path, mode: mode, owner: owner, group: group).map { "\(make) && \($0)" } ?? make
    }

    /// What gives a directory just made with `mode` exactly that mode, and `owner` and `group` (where given); nil
    /// when nothing can be amiss. Made with its mode it is never there with another, but a setgid parent hands its
    /// bit (and group) down all the same, which chmod then clears: the shell's test finds it without a process.
    static func settle(directory path: String, mode: UInt32, owner: String?, group: String?) -> ShellCommand? {
        var commands: [ShellCommand] = []
        if mode & 0o2000 == 0 { commands.append("{ [ ! -g \(path) ] || chmod \(raw: exactMode(mode)) \(path); }") }
        if owner != nil || group != nil { commands.append(chown(path, owner: owner, group: group)) }
        return commands.isEmpty ? nil : commands.joined(separator: " && ")
    }

    /// `command` run as `account`: as it is for root (or when the run is that account already), else through
    /// `runuser`.
    public static func run(_ command: ShellCommand, as account: String) -> ShellCommand {
        guard account != "root" else { return command }
        return "if [ \"$(id -un)\" = \(account) ]; then sh -c \(command.text); "
            + "else runuser -u \(account) -- sh -c \(command.text); fi"
    }

    /// A command placing standard input at `path` as `account`: a private file beside it, given its mode and owner
    /// (an account other than root can only set the group), then renamed over it, which replaces a link at `path`
    /// instead of following it. One round trip, the contents never on a command line.
    static func place(_ path: String, mode: UInt32, owner: String?, group: String?, as account: String)
        -> ShellCommand
    {
        let directory = Self.directory(of: path)
        let ownership: ShellCommand
        if account == "root", owner != nil || group != nil {
            ownership = " && chown \(Self.ownership(owner, group)) \"$t\""
        } else {
            ownership = group.map { " && chgrp \($0) \"$t\"" } ?? ""
        }
        let script: ShellCommand =
            "umask 077; t=$(mktemp -- \((directory.isEmpty ? "." : directory) + "/.keel-XXXXXXXX")) "
            + "|| exit 1; if cat > \"$t\" && chmod \(raw: octal(mode)) \"$t\"\(ownership) && mv -f -- \"$t\" \(path); "
            + "then exit 0; fi; rm -f -- \"$t\"; exit 1"
        return run(script, as: account)
    }

    /// Refuses an owner other than `account` for a path `account` controls: Keel writes it as that account, which
    /// cannot give it away.
    static func check(owner: String?, of path: String, controlledBy account: String) throws {
        guard account != "root", let owner, owner != account else { return }
        throw ResourceError(
            "\(path) is in a directory \(account) controls: Keel writes it as \(account), so its owner must be "
                + "\(account), not \(owner)")
    }
}
