/// What Keel makes of the OpenSSH command-line options an inventory hands Ansible's ssh
/// (`ansible_ssh_common_args`, `ansible_ssh_extra_args`): the jump hosts (`-J`, `-o ProxyJump=…`, or
/// `-o ProxyCommand="ssh -W %h:%p [user@]host"`), and every other option, which Keel has no equivalent for and
/// names in a warning rather than dropping it silently.
public struct SSHArguments: Sendable, Equatable {
    /// The hosts to go through, in order; empty for a direct connection.
    public var jumpHosts: [JumpHost] = []
    /// What Keel has a variable of its own for (`-p`/`Port`, `-l`/`User`, `-i`/`IdentityFile`,
    /// `UserKnownHostsFile`): used where the inventory does not set that variable. As ssh does, the first wins.
    public var port: Int?
    public var user: String?
    public var identityFile: String?
    public var knownHostsFile: String?
    /// The options Keel does not honour, as written (with why, where that helps).
    public var ignored: [String] = []

    /// ssh's options that take a value (`-p 2222`).
    private static let valued = Set("BbcDEeFIiJLlmOopQRSWw")

    /// Reads `text` as ssh's options.
    /// - Throws: ``InventoryError`` at `location` for unbalanced quotes or a jump host that cannot be read.
    public init(_ text: String, at location: SourceLocation) throws(InventoryError) {
        let words = try ShellWords.split(text, at: location, asExtraVariables: true)
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.count >= 2, word.hasPrefix("-"), let flag = word.dropFirst().first else {
                ignored.append(word)
                continue
            }
            var value = String(word.dropFirst(2))
            if Self.valued.contains(flag), value.isEmpty, index < words.count {
                value = words[index]
                index += 1
            }
            switch flag {
            case "J": jumpHosts = try Self.jumps(value, at: location)
            case "o": try option(value, at: location)
            case "p", "l", "i": take(String(flag), value, written: "-\(flag) \(value)")
            default: ignored.append(Self.valued.contains(flag) ? "-\(flag) \(value)" : word)
            }
        }
    }

    /// Takes one `-o Name=value` (or `-o "Name value"`).
    private mutating func option(_ option: String, at location: SourceLocation) throws(InventoryError) {
        let separator = option.firstIndex { $0 == "=" || $0 == " " } ?? option.endIndex
        let name = option[..<separator].lowercased()
        let value = option[separator...].drop { $0 == "=" || $0 == " " }
        switch name {
        case "proxyjump":
            jumpHosts = value == "none" ? [] : try Self.jumps(String(value), at: location)
        case "proxycommand":
            if value == "none" {
                jumpHosts = []
            } else if let jump = try Self.sshStdioForward(String(value), at: location) {
                jumpHosts = [jump]
            } else {
                ignored.append("-o \(option) (Keel opens its own tunnel: only ssh -W %h:%p [user@]host is understood)")
            }
        case "port", "user", "identityfile":
            take(name, String(value), written: "-o \(option)")
        case "userknownhostsfile" where value != "/dev/null":
            knownHostsFile = knownHostsFile ?? String(value)
        case "stricthostkeychecking", "userknownhostsfile":
            ignored.append(
                "-o \(option) (host keys are always checked against known_hosts: --accept-new-host-keys records "
                    + "new ones, keel_known_hosts_file or --known-hosts names the file)")
        default:
            ignored.append("-o \(option)")
        }
    }

    /// Takes the value of ssh's `-p`/`-l`/`-i` or its `Port`/`User`/`IdentityFile` option, unless one came first.
    private mutating func take(_ setting: String, _ value: String, written: String) {
        switch setting {
        case "p", "port":
            guard let number = Int(value), (1...65535).contains(number) else {
                ignored.append(written + " (not a port)")
                return
            }
            port = port ?? number
        case "l", "user": user = user ?? value
        default: identityFile = identityFile ?? value
        }
    }

    private static func jumps(_ text: String, at location: SourceLocation) throws(InventoryError) -> [JumpHost] {
        guard let jumps = JumpHost.list(text) else {
            throw InventoryError(
                "cannot read the jump host '\(text)'", at: location, hint: "write [user@]host[:port], comma-separated")
        }
        return jumps
    }

    /// The jump host of `ssh [-q] [-l user] [-p port] -W %h:%p [user@]host`, the ProxyCommand that does what
    /// ProxyJump does; nil for any other command.
    private static func sshStdioForward(_ command: String, at location: SourceLocation) throws(InventoryError)
        -> JumpHost?
    {
        let words = try ShellWords.split(command, at: location, asExtraVariables: true)
        guard let program = words.first, program == "ssh" || program.hasSuffix("/ssh") else { return nil }
        var (user, port, forwardsTarget, destination): (String?, Int?, Bool, String?) = (nil, nil, false, nil)
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            let next = index < words.count ? words[index] : nil
            switch word {
            case "-q": continue
            case "-W": forwardsTarget = next == "%h:%p"
            case "-l": user = next
            case "-p": port = next.flatMap { Int($0) }
            default:
                guard !word.hasPrefix("-"), destination == nil else { return nil }
                destination = word
                continue
            }
            guard next != nil else { return nil }
            index += 1
        }
        guard forwardsTarget, let destination, var jump = JumpHost(destination) else { return nil }
        if jump.user == nil { jump.user = user }
        if let port { jump.port = port }
        return jump
    }
}
