import KeelCore
import KeelSSH
import KeelTestSupport

extension TestSSHServer {
    /// A configuration for this server using `key` and a known_hosts file holding the server's real key.
    func configuration(
        key: String? = nil, passphrase: String? = nil, knownHosts: String? = nil,
        policy: SSHConfiguration.HostKeyPolicy = .strict, maxChannels: Int = 8
    ) throws -> SSHConfiguration {
        SSHConfiguration(
            host: "127.0.0.1", port: port, user: user,
            credentials: [.privateKey(path: key ?? keys.clientEd25519, passphrase: passphrase.map(Secret.init))],
            knownHostsPath: try knownHosts ?? self.knownHosts(), hostKeyPolicy: policy, maxChannels: maxChannels)
    }

    func connect() async throws -> SSHConnection {
        try await SSHConnection.connect(configuration())
    }
}

/// Runs `body` and returns the ``SSHError`` it throws, or nil when it throws none.
func sshError(_ body: () async throws -> Void) async -> SSHError? {
    do {
        try await body()
        return nil
    } catch let error as SSHError {
        return error
    } catch {
        return SSHError(.disconnected, host: "?", operation: "?", message: "unexpected error \(error)")
    }
}
