import KeelCore

/// Everything needed to open one SSH connection.
public struct SSHConfiguration: Sendable {
    /// What to do with a host key that known_hosts does not hold.
    public enum HostKeyPolicy: Sendable, Hashable {
        /// Refuse the connection (the default, like OpenSSH's `StrictHostKeyChecking yes`).
        case strict
        /// Record the key and go on (like OpenSSH's `accept-new`). A changed key is still refused.
        case acceptNew
    }

    /// How to prove who we are, tried in order until one succeeds.
    public enum Credential: Sendable {
        /// An OpenSSH or PEM private key file, with its passphrase when it has one.
        case privateKey(path: String, passphrase: Secret?)
        /// The identities held by the ssh-agent listening at `socket`: the `SSH_AUTH_SOCK` of the run that asks, even
        /// when a keeper started by an earlier run opens the session.
        case agent(socket: String)
        /// A password.
        case password(Secret)
    }

    public var host: String
    public var port: Int
    public var user: String
    public var credentials: [Credential]
    public var knownHostsPath: String
    public var hostKeyPolicy: HostKeyPolicy
    /// Bound on TCP connect, handshake and authentication together.
    public var connectTimeout: Duration
    /// Seconds between SSH keepalive messages while the connection is open.
    public var keepaliveInterval: Int
    /// At most this many channels open at once; more requests wait their turn.
    /// OpenSSH's `MaxSessions` defaults to 10.
    public var maxChannels: Int
    /// The hosts the connection goes through, in order (OpenSSH's ProxyJump): the first is reached directly,
    /// each next one through a tunnel the one before opens, and this host through the last one's.
    public var jumpHosts: [SSHConfiguration]

    public init(
        host: String, port: Int = 22, user: String, credentials: [Credential],
        knownHostsPath: String, hostKeyPolicy: HostKeyPolicy = .strict,
        connectTimeout: Duration = .seconds(10), keepaliveInterval: Int = 15, maxChannels: Int = 8,
        jumpHosts: [SSHConfiguration] = []
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.credentials = credentials
        self.knownHostsPath = knownHostsPath
        self.hostKeyPolicy = hostKeyPolicy
        self.connectTimeout = connectTimeout
        self.keepaliveInterval = keepaliveInterval
        self.maxChannels = maxChannels
        self.jumpHosts = jumpHosts
    }

    /// The host as known_hosts and messages spell it: `name`, or `[name]:port` off port 22.
    public var displayHost: String { port == 22 ? host : "[\(host)]:\(port)" }
}
