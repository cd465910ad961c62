/// The account that controls where a path lives: of the directories (or links) above it, the deepest one root
/// does not own, or that a group other than root's may write (`/var/log/postgresql`, root:postgres 1775: that
/// group's account), or that anyone may write (then `nobody`, which can change nothing), a sticky one only when
/// the path is right in it; root when none is. Keel writes, removes, re-modes and reads a path as that account: an
/// account that can rename or replace an entry on the way (postgres in its home, its `.ssh`, its log folder) could
/// otherwise swap in a link and make root write, chown or print a file it chose.
///
/// The accounts other than root cannot make an entry owned by root, nor take a write permission root gave, so the
/// answer cannot turn to root between the probe that finds it and the change that uses it.
public enum PathController {
    /// The system's own directories, root's 0755 on every Debian host (or group `staff`'s, whose members install
    /// into root's PATH anyway): a probe run as root checks them with the shell's own tests, starting no process.
    static let systemDirectories: Set<String> = [
        "/etc", "/etc/apt", "/etc/apt/apt.conf.d", "/etc/apt/keyrings", "/etc/apt/preferences.d",
        "/etc/apt/sources.list.d", "/etc/default", "/etc/security", "/etc/security/limits.d", "/etc/sudoers.d",
        "/etc/sysctl.d", "/etc/systemd", "/etc/systemd/system", "/usr", "/usr/lib", "/usr/local", "/usr/local/bin",
        "/usr/local/lib", "/var", "/var/lib", "/opt", "/srv", "/run",
    ]

    /// A probe snippet printing `account=NAME` for `path` (see the type's doc; missing directories count for
    /// nothing). Run as root, the system's directories are checked with `[ -O ]` and `[ -L ]` (shell builtins),
    /// and one `stat` reads the others; run as another account, one `stat` reads them all.
    static func probe(_ path: String) -> String {
        var directories: [String] = []
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            directories.append(prefix)
        }
        guard !directories.isEmpty else { return "echo account=root" }
        let system = directories.prefix { systemDirectories.contains($0) }
        let others = directories.dropFirst(system.count)
        let rootBranch =
            (system.isEmpty
                ? ""
                : "for d in \(system.map(shellQuote).joined(separator: " ")); do "
                    + "if [ -L \"$d\" ] || { [ -e \"$d\" ] && [ ! -O \"$d\" ]; }; then o=$(stat -c %U -- \"$d\"); "
                    + "[ \"$o\" = root ] || a=$o; fi; done; ") + (others.isEmpty ? ":" : controllers(of: Array(others)))
        return "a=root; if [ -O / ]; then \(rootBranch); else \(controllers(of: directories)); fi; "
            + "echo \"account=$a\""
    }

    /// One `stat` of `directories` (shallow to deep, ending at the path's own) setting `a` to the account each
    /// deeper one gives: its owner unless root; its group's unless root when the group may write it; `nobody` when
    /// anyone may. A link's own mode means nothing (its owner alone counts), and a sticky directory's only for the
    /// path's own: no one but root replaces root's entries in it (`/tmp/x/y` is as safe as `x`).
    private static func controllers(of directories: [String]) -> String {
        "i=0; for l in $(stat -c %U:%G:%f -- \(directories.map(shellQuote).joined(separator: " ")) 2>/dev/null); do "
            + "i=$((i + 1)); o=${l%%:*}; r=${l#*:}; g=${r%%:*}; m=$((0x${r#*:})); [ \"$o\" = root ] || a=$o; "
            + "if [ $((m & 61440)) != 40960 ] && { [ $((m & 512)) = 0 ] || [ $i = \(directories.count) ]; }; then "
            + "{ [ $((m & 16)) = 0 ] || [ \"$g\" = root ] || a=$g; }; [ $((m & 2)) = 0 ] || a=nobody; fi; done"
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
