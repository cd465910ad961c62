import Foundation
import KeelCore
import KeelSSH
import KeelTestSupport
import Synchronization
import Testing

@Suite("Remote commands against a real sshd")
struct ExecTests {
    @Test("exit status 0, 3, and a signal are results, not errors")
    func exitStatuses() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let ok = try await connection.run("echo hi")
            #expect(ok.stdoutText == "hi\n" && ok.exitStatus == 0 && ok.signal == nil && ok.succeeded)

            let three = try await connection.run("echo out; echo oops >&2; exit 3")
            #expect(three.stdoutText == "out\n")
            #expect(three.stderrText == "oops\n")
            #expect(three.exitStatus == 3 && !three.succeeded)

            let killed = try await connection.run("kill -TERM $$")
            #expect(killed.signal == "TERM")
            #expect(!killed.succeeded)
            await connection.close()
        }
    }

    @Test("10 MB on stdout and 10 MB on stderr at once do not stall")
    func largeOutputOnBothStreams() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let size = 10 * 1024 * 1024
            let result = try await connection.run(
                "head -c \(size) /dev/zero | tr '\\0' o & head -c \(size) /dev/zero | tr '\\0' e >&2; wait",
                timeout: .seconds(60))
            #expect(result.stdout.count == size)
            #expect(result.stderr.count == size)
            #expect(result.stdout.allSatisfy { $0 == UInt8(ascii: "o") })
            #expect(result.stderr.allSatisfy { $0 == UInt8(ascii: "e") })
        }
    }

    @Test("a deadline cuts a hung command short and the connection stays usable")
    func deadlineFires() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let start = ContinuousClock.now
            let error = await sshError {
                _ = try await connection.run("sleep 60.1 & sleep 60.1; echo late", timeout: .milliseconds(500))
            }
            #expect(error?.code == .timedOut)
            // Far below the command's 60 s; generous because parallel tests share two cores (17 s seen on a loaded
            // machine).
            #expect(ContinuousClock.now - start < .seconds(30))
            #expect(try await connection.run("echo still here").stdoutText == "still here\n")
            // Without a terminal nothing tells a command its channel closed: it is ended, with what it started.
            #expect(try await connection.run("pgrep -f 'sleep 60[.]1'").stdoutText == "")
        }
    }

    @Test("output beyond the limit is an error, not a silent truncation")
    func outputLimit() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let error = await sshError {
                _ = try await connection.run(
                    "head -c 100000 /dev/zero", input: [], become: nil, timeout: nil, outputLimit: 1000, observe: nil)
            }
            #expect(error?.code == .outputLimitExceeded)
        }
    }

    @Test("an observer hears the output as it arrives, while the command still runs")
    func observedOutput() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let heard = Mutex<[UInt8]>([])
            let task = Task {
                try await connection.run("echo first; echo second >&2; sleep 8; echo third") { chunk in
                    heard.withLock { $0 += chunk }
                }
            }
            // The command sleeps long enough that a busy machine (the suite runs tests side by side) does not
            // let "third" arrive before the loop looks.
            var early = ""
            for _ in 0..<100 where !early.contains("second") {
                try await Task.sleep(for: .milliseconds(50))
                early = heard.withLock { String(decoding: $0, as: UTF8.self) }
            }
            #expect(early.contains("first\n") && early.contains("second\n") && !early.contains("third"), "\(early)")
            let result = try await task.value
            #expect(result.stdoutText == "first\nthird\n")
            #expect(heard.withLock { $0.count } == result.stdout.count + result.stderr.count)
        }
    }

    @Test("cancelling the task ends the command")
    func cancellation() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let task = Task { try await connection.run("sleep 30.2; echo late") }
            try await Task.sleep(for: .milliseconds(300))
            let start = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(ContinuousClock.now - start < .seconds(15))
            #expect(try await connection.run("pgrep -f 'sleep 30[.]2'").stdoutText == "")
        }
    }

    @Test("standard input reaches the command, and multi-byte UTF-8 split across reads arrives intact")
    func inputAndUTF8() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let line = "é€😀 ünïcødé ✓\n"
            let text = String(repeating: line, count: 40_000)
            let echoed = try await connection.run("cat", input: Array(text.utf8))
            #expect(echoed.stdoutText == text)
            let generated = try await connection.run("yes 'é€😀 ünïcødé ✓' | head -n 40000")
            #expect(generated.stdout.count > 64 * 1024)
            #expect(generated.stdoutText == text)
        }
    }

    @Test("50 concurrent commands on one connection all answer correctly under the default MaxSessions")
    func fiftyConcurrentCommands() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            try await confirmConcurrent(50, on: connection)
        }
    }

    @Test("a server that allows fewer channels than asked still runs every command")
    func fewerSessionsThanChannels() async throws {
        try await TestSSHServer.with(maxSessions: 2) { server in
            let connection = try await SSHConnection.connect(server.configuration(maxChannels: 8))
            try await confirmConcurrent(20, on: connection)
        }
    }

    private func confirmConcurrent(_ count: Int, on connection: SSHConnection) async throws {
        let results = try await withThrowingTaskGroup(of: (Int, ExecResult).self) { group in
            for index in 0..<count {
                group.addTask {
                    (
                        index,
                        try await connection.run(
                            "sleep 0.1; echo out-\(index); echo err-\(index) >&2; exit \(index % 7)")
                    )
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == count)
        for (index, result) in results {
            #expect(result.stdoutText == "out-\(index)\n")
            #expect(result.stderrText == "err-\(index)\n")
            #expect(result.exitStatus == Int32(index % 7))
        }
    }

    @Test("become runs the command as root through sudo -n", .enabled(if: TestUser.canBecomeRoot))
    func become() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let result = try await connection.run("id -un; echo \"$0\"", become: Become())
            #expect(result.stdoutText == "root\n/bin/sh\n")
        }
    }
}
