import Foundation
import KeelCore
import KeelSSH
import KeelTestSupport
import Testing

/// Connections through a jump host (ProxyJump), against a real sshd that is its own jump host here: the lab's
/// test shows the same with the direct route blocked.
@Suite("connections through a jump host against a real sshd")
struct JumpHostTests {
    @Test("commands, a 16 MB upload and its download run through the tunnel; commands share it")
    func throughTheTunnel() async throws {
        try await TestSSHServer.with { server in
            var configuration = try server.configuration()
            configuration.jumpHosts = [try server.configuration()]
            let connection = try await SSHConnection.connect(configuration)
            let bytes = (0..<(16 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7) }
            let directory = try await connection.run("mktemp -d").stdoutText.trimmingCharacters(in: .newlines)
            let path = directory + "/tunnelled"
            try await connection.upload(bytes, to: path, timeout: .seconds(120))
            #expect(try await connection.run("wc -c < \(path)").stdoutText == "\(bytes.count)\n")
            #expect(try await connection.download(path, timeout: .seconds(120)) == bytes, "it reads back whole")
            _ = try await connection.run("rm -rf \(directory)")
            let outputs = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask { try await connection.run("sleep 0.2; echo \(index)").stdoutText }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outputs.sorted() == (0..<6).map { "\($0)\n" })
            await connection.close()
        }
    }

    @Test("a jump host whose key is not the recorded one is refused, naming it; nothing behind it is reached")
    func wrongJumpHostKey() async throws {
        try await TestSSHServer.with { server in
            let knownHosts = server.freshPath("known_hosts")
            let impostor = try server.publicKey(server.keys.clientStranger)
            try "[127.0.0.1]:\(server.port) \(impostor)\n".write(toFile: knownHosts, atomically: true, encoding: .utf8)
            var configuration = try server.configuration()
            configuration.jumpHosts = [try server.configuration(knownHosts: knownHosts)]
            let error = await sshError { _ = try await SSHConnection.connect(configuration) }
            #expect(
                error?.code == .hostKeyMismatch && error?.host == "[127.0.0.1]:\(server.port)",
                "\(String(describing: error))")
        }
    }

    @Test("a jump host that cannot reach the target says so, naming the target")
    func unreachableBehindTheJumpHost() async throws {
        try await TestSSHServer.with { server in
            var configuration = try server.configuration()
            configuration.port = try FreePort.find()
            configuration.jumpHosts = [try server.configuration()]
            let error = await sshError { _ = try await SSHConnection.connect(configuration) }
            #expect(
                error?.code == .connectFailed
                    && error?.message.contains("could not connect to 127.0.0.1 port \(configuration.port)") == true,
                "\(String(describing: error))")
        }
    }
}
