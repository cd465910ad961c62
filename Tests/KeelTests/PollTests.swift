import Foundation
import KeelTestSupport
import Testing

@testable import Keel

/// The one way Keel's shell commands wait: a deadline on the clock, then a failure with a message, or on.
@Suite("polls inside shell commands")
struct PollTests {
    func run(_ poll: Poll, then: String = "echo after") throws -> (status: Int32, output: String) {
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("keel-poll-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mark) }
        let script = poll.command.text.replacingOccurrences(of: "MARK", with: shellQuote(mark)) + "; \(then)"
        let result = try Shell.capture("/bin/sh", ["-c", script])
        return (result.status, result.output)
    }

    @Test("a check that comes true ends the wait and the command goes on")
    func succeeds() throws {
        // True on the third try: the mark file grows a line a try.
        let poll = Poll(
            until: "echo x >> MARK; [ $(wc -l < MARK) -ge 3 ]", seconds: 10, onTimeout: .fail("never"), interval: 0.1)
        let started = ContinuousClock.now
        let result = try run(poll)
        #expect(result.status == 0 && result.output == "after\n", "\(result)")
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test("after a command that failed, `&&` skips the whole wait (a refused switchover must not wait for it)")
    func composes() throws {
        let started = ContinuousClock.now
        for poll in [
            Poll(until: "false", seconds: 5, onTimeout: .proceed),
            Poll(until: "false", seconds: 5, onTimeout: .fail("x")),
        ] {
            let skipped = try Shell.capture("/bin/sh", ["-c", "false && \(poll.command); echo after"])
            #expect(skipped.status == 0 && skipped.output == "after\n", "\(skipped)")
        }
        #expect(ContinuousClock.now - started < .seconds(3), "no wait ran")
    }

    @Test("on timeout it fails with its message, or goes on, as declared")
    func timesOut() throws {
        let failed = try run(Poll(until: "false", seconds: 1, onTimeout: .fail("it's not ready"), interval: 0.2))
        #expect(failed.status == 1 && failed.output == "it's not ready\n", "\(failed)")
        let proceeded = try run(Poll(until: "false", seconds: 1, onTimeout: .proceed, interval: 0.2))
        #expect(proceeded.status == 0 && proceeded.output == "after\n", "\(proceeded)")
    }
}
