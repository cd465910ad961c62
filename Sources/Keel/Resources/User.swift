/// A local system group.
public struct Group: Resource {
    public var name: String
    public var system: Bool

    public init(_ name: String, system: Bool = true) {
        self.name = name
        self.system = system
    }

    public var description: String { "group \(name)" }
    public var affectsOtherResources: Bool { true }
    public var probe: String { "getent group \(shellQuote(name)) >/dev/null && echo exists=1 || echo exists=0" }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        output.fields["exists"] == "1"
            ? [] : [Change("create", .shell("groupadd \(raw: system ? "--system " : "")\(name)"))]
    }
}

/// A local user account with its primary group, home and shell.
public struct User: Resource {
    public var name: String
    public var group: String?
    public var home: String?
    public var shell: String
    public var system: Bool

    public init(
        _ name: String, group: String? = nil, home: String? = nil, shell: String = "/bin/bash", system: Bool = true
    ) {
        self.name = name
        self.group = group
        self.home = home
        self.shell = shell
        self.system = system
    }

    public var description: String { "user \(name)" }
    public var affectsOtherResources: Bool { true }

    public var probe: String {
        "entry=$(getent passwd \(shellQuote(name))) && { echo \"$entry\" | awk -F: '{print \"home=\" $6; print \"shell=\" $7; print \"gid=\" $4}'; echo \"group=$(id -gn \(shellQuote(name)))\"; } || echo missing=1"
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        if fields["missing"] != nil {
            var options: [ShellCommand] = system ? ["--system"] : []
            options += ["--shell \(shell)", "--create-home"]
            if let home { options.append("--home-dir \(home)") }
            options.append(group.map { "--gid \($0)" } ?? "--user-group")
            return [Change("create", .shell("useradd \(options.joined(separator: " ")) \(name)"))]
        }
        var changes: [Change] = []
        if fields["shell"] != shell {
            changes.append(Change("shell → \(shell)", .shell("usermod --shell \(shell) \(name)")))
        }
        if let home, fields["home"] != home {
            changes.append(Change("home → \(home)", .shell("usermod --home \(home) \(name)")))
        }
        if let group, fields["group"] != group {
            changes.append(Change("group → \(group)", .shell("usermod --gid \(group) \(name)")))
        }
        return changes
    }
}
