import Foundation
import KeelTestSupport
import Testing

extension LabTests {
    @Test(
        "the connection keeper: a second run takes the host's kept SSH session (no second login), --keep-connections 0 logs in afresh; a run killed mid-command has that command ended on the host; a kept session the host dropped is replaced by the next run",
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
