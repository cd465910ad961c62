import Foundation
import KeelTestSupport
import Testing

extension LabTests {
    @Test(
        "the connection keeper: a second run takes the host's kept SSH session (no second login), --keep-connections 0 logs in afresh; a run killed mid-command has that command ended on the host; a kept session the host dropped is replaced by the next run; a kept session is not used once known_hosts no longer holds its key (removed, or replaced by another): the run is refused; keel keep-connections --stop ends the keepers",
        .lab(hosts: 1)
    )
    func keptConnections() async throws {
        // The client port of the SSH connection a run's command came through.
        let port = { (options: [String]) async throws -> String in
            let lines = try await self.remote(
                arguments: ["-i", self.inventory] + options, "h1", "echo $SSH_CONNECTION")
            return try #require(lines.first?.split(separator: " ").dropFirst().first.map(String.init))
        }
        let first = try await port([])
        #expect(try await port([]) == first)
        #expect(try await port(["--keep-connections", "0"]) != first)
        let ping = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h1"])
        #expect(ping.output.contains("h1 | ok | connect ") && ping.output.contains("(session kept)"), "\(ping)")

        let sleeping = {
            try await self.remote(self.inventory, "h1", "pgrep -fx 'sleep 305' >/dev/null && echo running || echo gone")
                == ["running"]
        }
        let keel = Process()
        keel.executableURL = URL(fileURLWithPath: KeelBinary.path)
        keel.arguments = ["exec", "-i", inventory, "--limit", "h1", "--", "sleep 305"]
        keel.standardOutput = FileHandle.nullDevice
        keel.standardError = FileHandle.nullDevice
        try keel.run()
        try await waitUntil { try await sleeping() }
        kill(keel.processIdentifier, SIGKILL)
        keel.waitUntilExit()
        try await waitUntil { try await !sleeping() }

        // The shell's parent is sshd's process for the kept connection.
        let dropped = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h1", "--", "kill -KILL $PPID"])
        #expect(dropped.status != 0, "\(dropped)")
        let replaced = try await port([])
        #expect(replaced != first)
        #expect(try await port([]) == replaced)

        // Trust is known_hosts' now, not the kept session's: a copy of the inventory with a known_hosts of its own.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keel-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let knownHosts = folder.appendingPathComponent("known_hosts").path
        let lines = try String(contentsOfFile: "/var/lib/keel-lab/known_hosts", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let own = lines.filter { $0.hasPrefix("10.213.0.11 ") }.joined(separator: "\n") + "\n"
        try own.write(toFile: knownHosts, atomically: true, encoding: .utf8)
        let copy = folder.appendingPathComponent("hosts.ini").path
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(of: "/var/lib/keel-lab/known_hosts", with: knownHosts)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let pingCopy = { try await KeelBinary.run(["ping", "-i", copy, "--limit", "h1"]) }
        _ = try await pingCopy()
        let kept = try await pingCopy()
        #expect(kept.status == 0 && kept.output.contains("(session kept)"), "\(kept)")
        try "".write(toFile: knownHosts, atomically: true, encoding: .utf8)
        let removed = try await pingCopy()
        #expect(removed.status != 0 && removed.output.contains("is not in \(knownHosts)"), "\(removed)")
        try own.write(toFile: knownHosts, atomically: true, encoding: .utf8)
        #expect(try await pingCopy().status == 0)
        // Another host's key under h1's address: the same type, another key.
        let other = try #require(lines.first { $0.hasPrefix("10.213.0.12 ") && $0.contains("ed25519") })
        try (other.replacingOccurrences(of: "10.213.0.12 ", with: "10.213.0.11 ") + "\n").write(
            toFile: knownHosts, atomically: true, encoding: .utf8)
        let replacedKey = try await pingCopy()
        #expect(replacedKey.status != 0 && replacedKey.output.contains("HOST KEY CHANGED"), "\(replacedKey)")

        try own.write(toFile: knownHosts, atomically: true, encoding: .utf8)
        _ = try await pingCopy()
        let stopped = try await KeelBinary.run(["keep-connections", "--stop"])
        #expect(stopped.status == 0 && stopped.output.contains("keeper(s) ended"), "\(stopped)")
        let afresh = try await pingCopy()
        #expect(afresh.status == 0 && !afresh.output.contains("(session kept)"), "\(afresh)")
    }

    /// Polls `condition` every half second for up to 20 s.
    private func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("still not so after 20 s")
                return
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }
}
