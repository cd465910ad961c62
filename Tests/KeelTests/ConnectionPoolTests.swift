import Foundation
import KeelTestSupport
import Synchronization
import Testing

@testable import Keel

/// One connection per host for a whole command, shared by the facts, the survey and the run.
@Suite("the connection pool")
struct ConnectionPoolTests {
    /// A local host that counts how often it was closed.
    final class Counted: Transport, Sendable {
        let closes = Mutex(0)
        func run(
            _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
            observe: OutputObserver?
        ) async throws -> ExecResult {
            try await LocalTransport().run(
                command, input: input, become: become, timeout: timeout, outputLimit: outputLimit, observe: observe)
        }
        func close() async { closes.withLock { $0 += 1 } }
    }

    @Test("each host is connected once, whoever uses it; users' close leaves it open; closeAll closes each once")
    func shared() async throws {
        let opened = Mutex<[String: Int]>([:])
        let transports = Mutex<[String: Counted]>([:])
        let pool = ConnectionPool { target in
            opened.withLock { $0[target.name, default: 0] += 1 }
            return transports.withLock { $0[target.name, default: Counted()] }
        }
        let targets = ["a", "b", "c"].map { HostTarget(name: $0, address: "127.0.0.1", user: "root") }
        let fleet = Fleet(forks: 3, connector: pool.connector)
        for _ in 0..<3 {
            let outcomes = await fleet.run(targets) { target, transport in
                try await transport.run("echo \(target.name)").stdoutText
            }
            #expect(outcomes.count == 3)
        }
        let runner = Runner(
            inventory: try InventoryFixture(["hosts.ini": "a\nb\nc\n"]).load("hosts.ini"),
            options: RunOptions(), reporter: CollectingReporter(), connector: pool.connector)
        _ = try await runner.run(
            Playbook("noop", summary: "facts only") { Play("noop", on: "all") { _ in Command("true", unless: "true") } }
        )
        #expect(opened.withLock { $0 } == ["a": 1, "b": 1, "c": 1])
        #expect(transports.withLock { $0.values.allSatisfy { $0.closes.withLock { $0 } == 0 } })
        await pool.closeAll()
        #expect(transports.withLock { $0.values.allSatisfy { $0.closes.withLock { $0 } == 1 } })
    }
}
