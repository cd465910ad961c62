import Foundation
import KeelSSH

/// Settings that apply to every connection of a run, from the command line and the environment.
public struct ConnectionOptions: Sendable {
    /// known_hosts to check keys against when neither the operator nor the inventory names one.
    public var knownHostsPath: String
    /// known_hosts the operator named (`--known-hosts`): it wins over the inventory's `keel_known_hosts_file`.
    public var knownHostsOverride: String?
    /// Record the keys of hosts not yet known (OpenSSH's `accept-new`); a changed key is refused either way.
    public var acceptNewHostKeys: Bool
    public var connectTimeout: Duration
    /// Passphrases for encrypted private keys, by key path.
    public var passphrases: [String: Secret]
    /// A password to offer when the inventory gives none (from `KEEL_SSH_PASSWORD`).
    public var password: Secret?
    /// The connection keeper that holds sessions between runs; nil to connect afresh each run.
    public var keeper: KeeperAddress?

    public init(
        knownHostsPath: String = ("~/.ssh/known_hosts" as NSString).expandingTildeInPath,
        knownHostsOverride: String? = nil, acceptNewHostKeys: Bool = false, connectTimeout: Duration = .seconds(10),
        passphrases: [String: Secret] = [:], password: Secret? = nil, keeper: KeeperAddress? = nil
    ) {
        self.knownHostsPath = knownHostsPath
        self.knownHostsOverride = knownHostsOverride
        self.acceptNewHostKeys = acceptNewHostKeys
        self.connectTimeout = connectTimeout
        self.passphrases = passphrases
        self.password = password
        self.keeper = keeper
    }

    /// Connects over SSH with these options: through the keeper when there is one and it answers.
    public var connector: HostConnector {
        { [self] target in
            let configuration = configuration(for: target)
            if let keeper,
                let kept = try await KeptConnection.lease(name: target.name, configuration: configuration, from: keeper)
            {
                return kept
            }
            return try await SSHConnection.connect(configuration)
        }
    }

    /// The SSH configuration for `target`: its key (or, without one, the agent and the default keys), then a
    /// password when one is known. Every path in it is absolute (a relative one taken from this process's working
    /// folder), so that the keeper, which runs from `/`, reads the same files.
    public func configuration(for target: HostTarget) -> SSHConfiguration {
        var credentials: [SSHConfiguration.Credential] = []
        if let key = target.privateKeyFile {
            credentials.append(.privateKey(path: Self.absolute(key), passphrase: passphrases[key]))
        } else {
            if let socket = ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"], !socket.isEmpty {
                credentials.append(.agent(socket: Self.absolute(socket)))
            }
            for key in Self.defaultKeys where FileManager.default.fileExists(atPath: key) {
                credentials.append(.privateKey(path: key, passphrase: passphrases[key]))
            }
        }
        if let password = target.password ?? password { credentials.append(.password(password)) }
        // Jump hosts are reached with the target's credentials and checked against the same known_hosts.
        let reach = { (host: String, port: Int, user: String) in
            SSHConfiguration(
                host: host, port: port, user: user, credentials: credentials,
                knownHostsPath: Self.absolute(knownHostsOverride ?? target.knownHostsFile ?? knownHostsPath),
                hostKeyPolicy: acceptNewHostKeys ? .acceptNew : .strict, connectTimeout: connectTimeout)
        }
        var configuration = reach(target.address, target.port, target.user)
        configuration.jumpHosts = target.jumpHosts.map { reach($0.host, $0.port, $0.user ?? target.user) }
        return configuration
    }

    /// `path` from this process's working folder when it is relative.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The private key files `targets` would use that are encrypted: their passphrases must be asked for.
    public static func encryptedKeys(for targets: [HostTarget]) -> [String] {
        let keys = Set(targets.compactMap(\.privateKeyFile)).union(
            targets.contains { $0.privateKeyFile == nil } ? defaultKeys : [])
        return keys.sorted().filter { PrivateKeyFile.inspect(path: $0)?.isEncrypted == true }
    }

    /// The keys OpenSSH would try, in its order, limited to the kinds libssh2 1.10 can use.
    public static let defaultKeys = ["~/.ssh/id_ed25519", "~/.ssh/id_ecdsa"].map {
        ($0 as NSString).expandingTildeInPath
    }
}
