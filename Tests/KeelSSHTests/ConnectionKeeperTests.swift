import Foundation
import KeelCore
import KeelTestSupport
import Synchronization
import Testing

@testable import KeelSSH

@Suite("The connection keeper, against a real sshd")
struct ConnectionKeeperTests {
    /// A keeper serving in this process at a fresh socket, counting the sessions it opens.
    final class Keeper: Sendable {
        let address: KeeperAddress
        let serving: Task<Void, any Error>

        init(
            persist: Duration = .seconds(30),
            connect: @escaping ConnectionKeeper.Connect = { try await SSHConnection.connect($0) }
        ) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "keel-keeper-\(UUID().uuidString.prefix(8))"
            ).path
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let socket = folder + "/k.sock"
            address = try KeeperAddress(socketPath: socket, launch: [])
            serving = Task { try await ConnectionKeeper.serve(at: socket, persist: persist, connect: connect) }
        }

        func lease(_ configuration: SSHConfiguration, name: String = "h1") async throws -> KeptConnection {
            let deadline = ContinuousClock.now + .seconds(20)
            while !FileManager.default.fileExists(atPath: address.socketPath), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let kept = try await KeptConnection.lease(name: name, configuration: configuration, from: address)
            return try #require(kept)
        }
    }

    /// Opens sessions over SSH and counts them.
    final class CountingConnect: Sendable {
        let count = Atomic(0)
        var connect: ConnectionKeeper.Connect {
            { configuration in
                self.count.add(1, ordering: .relaxed)
                return try await SSHConnection.connect(configuration)
            }
        }
    }

    @Test("a second lease of a host reuses its session; input, output, status and the output heard travel whole")
    func reuse() async throws {
        try await TestSSHServer.with { server in
            let counting = CountingConnect()
            let keeper = try Keeper(connect: counting.connect)
            let configuration = try server.configuration()
            let first = try await keeper.lease(configuration)
            let port = try await first.run("echo ${SSH_CONNECTION#* }").stdoutText
            await first.close()
            let second = try await keeper.lease(configuration)
            #expect(!first.wasKept && second.wasKept)
            #expect(try await second.run("echo ${SSH_CONNECTION#* }").stdoutText == port)
            let heard = Mutex<[UInt8]>([])
            let result = try await second.run(
                "cat; echo oops >&2; exit 3", input: Array("hello\n".utf8),
                observe: { chunk in heard.withLock { $0 += chunk } })
            #expect(result.stdoutText == "hello\n" && result.stderrText == "oops\n" && result.exitStatus == 3)
            #expect(heard.withLock { $0.count } == 11)
            let big = try await second.run("head -c 3000000 /dev/zero")
            #expect(big.stdout.count == 3_000_000)
            // Another inventory name at the same address gets a session of its own.
            let other = try await keeper.lease(configuration, name: "h2")
            #expect(try await other.run("echo ${SSH_CONNECTION#* }").stdoutText != port)
            #expect(counting.count.load(ordering: .relaxed) == 2)
            await second.close()
            await other.close()
            keeper.serving.cancel()
        }
    }

    @Test("an error opening the session reaches the client as the SSHError it was")
    func connectError() async throws {
        try await TestSSHServer.with { server in
            let keeper = try Keeper()
            let empty = server.freshPath("known_hosts")
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            let error = await sshError { _ = try await keeper.lease(try server.configuration(knownHosts: empty)) }
            #expect(error?.code == .hostKeyUnknown)
            #expect(error?.host == "[127.0.0.1]:\(server.port)")
            keeper.serving.cancel()
        }
    }

    @Test(
        "a kept session is not handed out once known_hosts no longer holds its key (removed, or replaced by another): the lease connects afresh and is refused; relative paths are refused"
    )
    func trustEndsWithKnownHosts() async throws {
        try await TestSSHServer.with { server in
            let counting = CountingConnect()
            let keeper = try Keeper(connect: counting.connect)
            let knownHosts = try server.knownHosts()
            let configuration = try server.configuration(knownHosts: knownHosts)
            // Held throughout: a keeper holding no session ends, and the refused leases below drop theirs.
            let held = try await keeper.lease(try server.configuration(), name: "h2")
            await (try await keeper.lease(configuration)).close()
            let again = try await keeper.lease(configuration)
            #expect(again.wasKept)
            await again.close()

            let entry = try String(contentsOfFile: knownHosts, encoding: .utf8)
            try "".write(toFile: knownHosts, atomically: true, encoding: .utf8)
            let removed = await sshError { _ = try await keeper.lease(configuration) }
            #expect(removed?.code == .hostKeyUnknown, "\(String(describing: removed))")

            try entry.write(toFile: knownHosts, atomically: true, encoding: .utf8)
            await (try await keeper.lease(configuration)).close()
            // Another ed25519 key in its place.
            let stranger = "[127.0.0.1]:\(server.port) \(try server.publicKey(server.keys.clientStranger))\n"
            try stranger.write(toFile: knownHosts, atomically: true, encoding: .utf8)
            let replaced = await sshError { _ = try await keeper.lease(configuration) }
            #expect(replaced?.code == .hostKeyMismatch, "\(String(describing: replaced))")

            var relative = configuration
            relative.knownHostsPath = "known_hosts"
            await #expect(throws: (any Error).self) { _ = try await keeper.lease(relative) }
            #expect(counting.count.load(ordering: .relaxed) == 5)
            await held.close()
            keeper.serving.cancel()
        }
    }

    @Test("a cancelled command, and one whose client went away, is ended on the host")
    func cancelAndAbandon() async throws {
        try await TestSSHServer.with { server in
            let keeper = try Keeper()
            let kept = try await keeper.lease(try server.configuration())
            let running = Task { try await kept.run("sleep 31.25") }
            try await waitUntil { Self.running("sleep 31.25") }
            running.cancel()
            await #expect(throws: CancellationError.self) { try await running.value }
            try await waitUntil { !Self.running("sleep 31.25") }

            // A client killed mid-command: its socket closes with nothing more said.
            let socket = try #require(UnixSocket.connect(to: keeper.address.socketPath))
            let request = RunRequest(
                session: kept.session, command: "sleep 32.25", becomeUser: nil, timeoutMilliseconds: nil,
                outputLimit: 1 << 20,
                observe: false)
            #expect(try KeeperFrame(.run, json: request).write(to: socket) && KeeperFrame(.input).write(to: socket))
            try await waitUntil { Self.running("sleep 32.25") }
            close(socket)
            try await waitUntil { !Self.running("sleep 32.25") }
            await kept.close()
            keeper.serving.cancel()
        }
    }

    @Test("a kept session that died is replaced by the next lease")
    func deadSessionReplaced() async throws {
        try await TestSSHServer.with { server in
            let counting = CountingConnect()
            let keeper = try Keeper(connect: counting.connect)
            let configuration = try server.configuration()
            let first = try await keeper.lease(configuration)
            // The shell's parent is the server's process for this connection.
            _ = try? await first.run("kill -KILL $PPID")
            await first.close()
            let second = try await keeper.lease(configuration)
            #expect(try await second.run("echo alive").stdoutText == "alive\n")
            #expect(counting.count.load(ordering: .relaxed) == 2)
            await second.close()
            keeper.serving.cancel()
        }
    }

    @Test("sessions nobody used for `persist` are closed, and the keeper then ends and removes its socket")
    func idleEnd() async throws {
        try await TestSSHServer.with { server in
            let keeper = try Keeper(persist: .seconds(1))
            let kept = try await keeper.lease(try server.configuration())
            #expect(try await kept.run("true").succeeded)
            await kept.close()
            let ended = ContinuousClock.now
            try await keeper.serving.value
            #expect(ContinuousClock.now - ended < .seconds(6))
            #expect(!FileManager.default.fileExists(atPath: keeper.address.socketPath))
        }
    }

    @Test("a keeper's folder open to others is refused, and a second keeper at a socket leaves it to the first")
    func folderAndLock() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-keeper-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        #expect(throws: (any Error).self) { try KeeperAddress(socketPath: folder + "/k.sock", launch: []) }
        let keeper = try Keeper()
        try await waitUntil { FileManager.default.fileExists(atPath: keeper.address.socketPath) }
        let second = ContinuousClock.now
        try await ConnectionKeeper.serve(at: keeper.address.socketPath, persist: .seconds(30)) { _ in
            throw CancellationError()
        }
        #expect(ContinuousClock.now - second < .seconds(1))
        #expect(FileManager.default.fileExists(atPath: keeper.address.socketPath))
        keeper.serving.cancel()
    }

    private static func running(_ command: String) -> Bool {
        (try? Shell.capture("/usr/bin/pgrep", ["-fx", command]).status) == 0
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
