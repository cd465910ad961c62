import Foundation

/// How to reach one inventory host: address, port, user, key and privilege escalation, read from Ansible's
/// connection variables or Keel's own (`keel_*` wins over `ansible_*`).
public struct HostTarget: Sendable {
    public var name: String
    public var address: String
    public var port: Int
    public var user: String
    public var privateKeyFile: String?
    public var password: Secret?
    public var become: Become?
    /// A known_hosts file named by the inventory (`keel_known_hosts_file`), relative to the inventory.
    public var knownHostsFile: String?
    /// The hosts the connection goes through (`keel_proxy_jump`, or ssh's options in `ansible_ssh_common_args`).
    public var jumpHosts: [JumpHost] = []
    /// ssh's options from the inventory that Keel has no equivalent for, each with where it is written.
    public var ignoredSSHOptions: [String] = []

    public init(
        name: String, address: String, port: Int = 22, user: String, privateKeyFile: String? = nil,
        password: Secret? = nil, become: Become? = nil, knownHostsFile: String? = nil
    ) {
        self.name = name
        self.address = address
        self.port = port
        self.user = user
        self.privateKeyFile = privateKeyFile
        self.password = password
        self.become = become
        self.knownHostsFile = knownHostsFile
    }

    /// How a command that needs privileges runs: as ``become``'s account (root unless set), through sudo; directly
    /// when connected as that account already (sudo would only cost a process and its PAM session).
    public var privileged: Become? {
        let become = self.become ?? Become()
        return become.user == user ? nil : become
    }
}

extension Inventory {
    /// The connection settings of `host`.
    /// - Throws: ``InventoryError`` when a connection variable has the wrong type.
    public func target(for host: String) throws(InventoryError) -> HostTarget {
        let reader = VariableReader(host: host, variables: variables(for: host))
        let becomeEnabled = try reader.bool(ConnectionVariable.become) ?? false
        let becomeUser = try reader.string(ConnectionVariable.becomeUser) ?? "root"
        var target = HostTarget(
            name: host,
            address: try reader.string(ConnectionVariable.address) ?? host,
            port: try reader.int(ConnectionVariable.port, in: 1...65535) ?? 22,
            user: try reader.string(ConnectionVariable.user) ?? ProcessInfo.processInfo.userName,
            privateKeyFile: try reader.string(ConnectionVariable.privateKeyFile)
                .map(resolvePath),
            password: try reader.string(ConnectionVariable.password).map(Secret.init),
            become: becomeEnabled ? Become(user: becomeUser) : nil,
            knownHostsFile: try reader.string(ConnectionVariable.knownHostsFile).map(resolvePath))
        // ssh's own options fill in what the inventory's variables leave unset (the first value wins, as in ssh).
        var taken: (port: Int?, user: String?, key: String?, knownHosts: String?) = (nil, nil, nil, nil)
        for name in ConnectionVariable.sshArguments {
            guard let text = try reader.string([name]), let origin = reader.written([name])?.variable.origin else {
                continue
            }
            let arguments = try SSHArguments(text, at: origin)
            if target.jumpHosts.isEmpty { target.jumpHosts = arguments.jumpHosts }
            taken = (
                taken.port ?? arguments.port, taken.user ?? arguments.user, taken.key ?? arguments.identityFile,
                taken.knownHosts ?? arguments.knownHostsFile
            )
            target.ignoredSSHOptions += arguments.ignored.map { "\($0) (\(name), \(origin))" }
        }
        if reader.written(ConnectionVariable.port) == nil, let port = taken.port { target.port = port }
        if reader.written(ConnectionVariable.user) == nil, let user = taken.user { target.user = user }
        if reader.written(ConnectionVariable.privateKeyFile) == nil, let key = taken.key {
            target.privateKeyFile = resolvePath(key)
        }
        if reader.written(ConnectionVariable.knownHostsFile) == nil, let file = taken.knownHosts {
            target.knownHostsFile = resolvePath(file)
        }
        if let text = try reader.string(ConnectionVariable.proxyJump) {
            guard text == "none" || JumpHost.list(text) != nil else {
                throw InventoryError(
                    "cannot read keel_proxy_jump '\(text)'",
                    at: reader.written(ConnectionVariable.proxyJump)?.variable.origin,
                    hint: "write [user@]host[:port], comma-separated, or none")
            }
            target.jumpHosts = text == "none" ? [] : JumpHost.list(text) ?? []
        }
        return target
    }

    /// Expands `~`; a relative path is taken from the inventory's folder only, so that the directory keel runs in
    /// never changes which key or host keys are used.
    func resolvePath(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        return ((self.path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(expanded)
    }
}
