import Keel

/// SSH between cluster hosts for `user`: its private key, the one public key it accepts, and the host keys of
/// the hosts it talks to, taken from those hosts' facts (never trusted on first use). The key it accepts works
/// only from those hosts' addresses, and runs pgbackrest only: a stolen key is no shell here.
struct SSHTrust: Role {
    /// The forced command of the accepted key.
    static let command = "/usr/local/lib/keel/pgbackrest-ssh"
    /// What it runs: pgBackRest, for its remote side only.
    static let pgbackrest = "/usr/bin/pgbackrest"
    /// The home of pgbackrest on the repository host (postgres's is ``ClusterModel/postgresHome``).
    static let repositoryHome = "/home/pgbackrest"

    /// The files Keel writes in a home's `.ssh`: the key, the one key accepted, the pinned host keys.
    struct Files {
        let privateKey: String
        let authorizedKeys: String
        let knownHosts: String

        init(in home: String) {
            privateKey = home + "/.ssh/id_ed25519"
            authorizedKeys = home + "/.ssh/authorized_keys"
            knownHosts = home + "/.ssh/known_hosts"
        }

        var all: [String] { [privateKey, authorizedKeys, knownHosts] }
    }

    let user: String
    let home: String
    let key: SSHKeyPair
    let peerKey: SSHKeyPair
    let peers: [String]
    let host: HostContext
    let model: ClusterModel

    init(
        user: String, home: String, key: SSHKeyPair, accepting peerKey: SSHKeyPair, from peers: [String],
        host: HostContext, model: ClusterModel
    ) {
        self.user = user
        self.home = home
        self.key = key
        self.peerKey = peerKey
        self.peers = peers
        self.host = host
        self.model = model
    }

    var steps: [Step] {
        get throws {
            let knownHosts = try peers.map { peer in
                guard let keys = host.peers[peer]?.sshHostKeys, !keys.isEmpty else {
                    throw ResourceError(
                        "the SSH host keys of \(peer) are unknown to this run; run without a --limit that leaves \(peer) out"
                    )
                }
                return keys.map { "\(peer),\(model.address(of: peer)) \($0)\n" }.joined()
            }.joined()
            Directory("/usr/local/lib/keel")
            Template(
                "cluster/pgbackrest/ssh-command", to: Self.command, mode: 0o755,
                values: ["pgbackrest": .string(Self.pgbackrest), "stanza": .string(model.backups?.stanza ?? "")])
            let authorizedKey = try authorizedKey
            let files = Files(in: home)
            Directory("\(home)/.ssh", mode: 0o700, owner: user, group: user)
            File(files.privateKey, contents: .secret(key.privateKey), mode: 0o600, owner: user, group: user)
            File(files.authorizedKeys, content: authorizedKey, mode: 0o600, owner: user, group: user)
            File(
                files.knownHosts,
                content: "# Managed by Keel: pinned from the hosts' own keys.\n" + knownHosts, owner: user, group: user)
        }
    }

    /// The accepted key, limited to the peers' addresses and to pgbackrest, without a terminal or forwarding.
    /// sshd matches `from=` against the client's IP address (it does not look names up by default): a peer
    /// reached by a DNS name is named by the address its facts report.
    var authorizedKey: String {
        get throws {
            let addresses = try peers.map { peer in
                let address = model.address(of: peer)
                if IPv4.isValid(address) { return address }
                guard let own = host.peers[peer]?.defaultIPv4, IPv4.isValid(own) else {
                    throw ResourceError(
                        "the IP address of \(peer) (\(address)) is unknown to this run; run without a --limit that leaves \(peer) out"
                    )
                }
                return own
            }
            return
                "from=\"\(addresses.joined(separator: ","))\",restrict,command=\"\(Self.command)\" \(peerKey.publicKey)\n"
        }
    }
}
