import Foundation
import KeelCore
import KeelSSH
import KeelTestSupport
import Testing

@Suite("Host keys and authentication against a real sshd")
struct AuthenticationTests {
    @Test("a changed host key is refused, even when new keys may be accepted")
    func wrongHostKeyRefused() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = server.freshPath("known_hosts")
            let impostor = try server.publicKey(server.keys.clientStranger)
            try "[127.0.0.1]:\(server.port) \(impostor)\n".write(toFile: knownHosts, atomically: true, encoding: .utf8)
            for policy in [SSHConfiguration.HostKeyPolicy.strict, .acceptNew] {
                let error = await sshError {
                    _ = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts, policy: policy))
                }
                #expect(error?.code == .hostKeyMismatch)
                #expect(error?.message.contains("HOST KEY CHANGED") == true)
            }
        }
    }

    @Test("off port 22, a plain entry for the host with the right key does not hide a changed [host]:port key")
    func portEntryWins() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = server.freshPath("known_hosts")
            let impostor = try server.publicKey(server.keys.clientStranger)
            let real = try server.publicKey(server.keys.hostEd25519)
            try "[127.0.0.1]:\(server.port) \(impostor)\n127.0.0.1 \(real)\n".write(
                toFile: knownHosts, atomically: true, encoding: .utf8)
            let error = await sshError {
                _ = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts))
            }
            #expect(error?.code == .hostKeyMismatch, "\(String(describing: error))")
        }
    }

    @Test("an unknown host key is refused in strict mode and recorded with accept-new")
    func unknownHostKey() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = server.freshPath("known_hosts")
            let strict = await sshError {
                _ = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts))
            }
            #expect(strict?.code == .hostKeyUnknown)
            #expect(strict?.message.contains("--accept-new-host-keys") == true)
            #expect(!FileManager.default.fileExists(atPath: knownHosts))

            let accepted = try await SSHConnection.connect(
                server.configuration(knownHosts: knownHosts, policy: .acceptNew))
            await accepted.close()
            let recorded = try String(contentsOfFile: knownHosts, encoding: .utf8)
            #expect(recorded.hasPrefix("[127.0.0.1]:\(server.port) ssh-ed25519 "))

            let again = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts))
            #expect(try await again.run("echo ok").stdoutText == "ok\n")
        }
    }

    @Test("a new key recorded after a last line without its newline starts a line of its own")
    func recordAfterUnterminatedLine() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = server.freshPath("known_hosts")
            let other = "other.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMoPU2KBpsQJr1v0OfUgC1d7YtEgLAJSHNxTzL3VtMUn"
            try other.write(toFile: knownHosts, atomically: true, encoding: .utf8)
            let accepted = try await SSHConnection.connect(
                server.configuration(knownHosts: knownHosts, policy: .acceptNew))
            await accepted.close()
            let lines = try String(contentsOfFile: knownHosts, encoding: .utf8).split(separator: "\n")
            #expect(
                lines.count == 2 && lines[0] == other && lines[1].hasPrefix("[127.0.0.1]:\(server.port) ssh-ed25519 "))
            let again = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts))
            #expect(try await again.run("echo ok").stdoutText == "ok\n")
        }
    }

    @Test("a hashed known_hosts entry matches")
    func hashedKnownHosts() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = try server.knownHosts()
            try Shell.run("/usr/bin/ssh-keygen", ["-H", "-f", knownHosts])
            #expect(try String(contentsOfFile: knownHosts, encoding: .utf8).hasPrefix("|1|"))
            let connection = try await SSHConnection.connect(server.configuration(knownHosts: knownHosts))
            #expect(try await connection.run("echo ok").stdoutText == "ok\n")
        }
    }

    @Test("a key the server does not know is refused with a message naming the key and user")
    func wrongKey() async throws {
        try await TestSSHServer.with { server in
            let error = await sshError {
                _ = try await SSHConnection.connect(server.configuration(key: server.keys.clientStranger))
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.message.contains(server.keys.clientStranger) == true)
            #expect(error?.message.contains("authorized_keys") == true)
        }
    }

    @Test("an encrypted key opens with its passphrase and fails clearly with a wrong or missing one")
    func passphrases() async throws {
        try await TestSSHServer.with { server in
            let key = server.keys.clientEncrypted
            let connection = try await SSHConnection.connect(
                server.configuration(key: key, passphrase: server.keys.passphrase))
            #expect(try await connection.run("echo ok").stdoutText == "ok\n")

            let wrong = await sshError {
                _ = try await SSHConnection.connect(server.configuration(key: key, passphrase: "nope"))
            }
            #expect(wrong?.code == .wrongPassphrase)
            #expect(wrong?.message == "wrong passphrase for private key \(key)")

            let missing = await sshError { _ = try await SSHConnection.connect(server.configuration(key: key)) }
            #expect(missing?.code == .wrongPassphrase)
            #expect(missing?.message.contains("KEEL_SSH_PASSPHRASE") == true)
        }
    }

    @Test("an RSA key refused for its SHA-1 signature says so and suggests ed25519")
    func rsaKey() async throws {
        try await TestSSHServer.with { server in
            let error = await sshError {
                _ = try await SSHConnection.connect(server.configuration(key: server.keys.clientRSA))
            }
            #expect(error?.code == .rsaSHA1Refused)
            #expect(error?.message.contains("rsa-sha2-256/512") == true)
            #expect(error?.message.contains("ed25519") == true)
        }
    }

    @Test("nothing listening gives a connect error naming the host")
    func refusedConnection() async throws {
        let port = try FreePort.find()
        let configuration = SSHConfiguration(
            host: "127.0.0.1", port: port, user: "nobody", credentials: [], knownHostsPath: "/nonexistent")
        let error = await sshError { _ = try await SSHConnection.connect(configuration) }
        #expect(error?.code == .connectFailed)
        #expect(error?.host == "[127.0.0.1]:\(port)")
        #expect(error?.message.contains("refused") == true)
    }
}

@Suite("Authentication through an ssh-agent")
struct AgentTests {
    @Test(
        "the agent's key logs in, from the agent the configuration names (not this process's SSH_AUTH_SOCK); an agent without a suitable key is refused with a clear message"
    )
    func agent() async throws {
        try await TestSSHServer.with { server in
            let socket = server.freshPath("agent.sock")
            let agent = try Shell.spawn("/usr/bin/ssh-agent", ["-D", "-a", socket])
            defer { kill(agent, SIGKILL); _ = Shell.wait(agent) }
            try FreePort.waitForFile(socket, timeout: 5)
            var configuration = try server.configuration()
            configuration.credentials = [.agent(socket: socket)]

            let empty = await sshError { _ = try await SSHConnection.connect(configuration) }
            #expect(empty?.code == .authenticationFailed)
            #expect(empty?.message.contains("ssh-agent") == true)

            let added = try Shell.capture(
                "/usr/bin/ssh-add", [server.keys.clientEd25519], environment: ["SSH_AUTH_SOCK": socket])
            #expect(added.status == 0, "\(added.output)")
            let connection = try await SSHConnection.connect(configuration)
            #expect(try await connection.run("echo agent").stdoutText == "agent\n")
        }
    }
}
