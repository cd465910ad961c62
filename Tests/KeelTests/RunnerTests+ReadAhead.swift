import Foundation
import KeelTestSupport
import Synchronization
import Testing

@testable import Keel

extension RunnerTests {
    /// Three plays: a file, its copy made only while it differs, and a file of its own.
    func chained() -> Playbook {
        let root = root
        return Playbook("chained", summary: "") {
            Play("source", on: "all") { host in
                File("\(root)/\(host.name).source", content: "v1\n", owner: nil, group: nil)
            }
            Play("copy", on: "all") { host in
                Command(
                    "cp \(root)/\(host.name).source \(root)/\(host.name).copy",
                    unless: "cmp -s \(root)/\(host.name).source \(root)/\(host.name).copy")
            }
            Play("last", on: "all") { host in
                File("\(root)/\(host.name).last", content: "last\n", owner: nil, group: nil)
            }
        }
    }

    /// Runs `playbook` through local transports that count the round trips each host's connection makes.
    func counted(_ playbook: Playbook, memory: FactsMemory? = nil) async throws -> (Recap, roundTrips: [String: Int]) {
        let trips = TripCounter()
        var options = RunOptions()
        options.factsMemory = memory
        let runner = Runner(inventory: inventory, options: options, reporter: CollectingReporter()) { target in
            CountingTransport(name: target.name, trips: trips)
        }
        let recap = try await runner.run(playbook)
        return (recap, trips.counts.withLock { $0 })
    }

    @Test(
        "a run that changes nothing reads the later plays' probes ahead: facts, the first play and one more round trip per host; once anything changes, each later play probes afresh"
    )
    func readAhead() async throws {
        let (first, firstTrips) = try await counted(chained())
        #expect(first.totalChanged == 6)
        // Facts, the first play's probe and the later plays' read ahead; each file play's write and the probe
        // proving it in one (two before); the copy's probe afresh, its command and proof; the last play's probe.
        #expect(firstTrips == ["alpha": 9, "beta": 9], "\(firstTrips)")

        let (noop, trips) = try await counted(chained())
        #expect(noop.totalChanged == 0)
        #expect(trips == ["alpha": 3, "beta": 3], "facts, play 1's probe, the others' read ahead")

        // A hand edit of the first play's file: the copy made by the next play must see the file as corrected, not
        // as it was read ahead (it would then look in step and stay stale).
        try "tampered\n".write(toFile: "\(root)/alpha.source", atomically: true, encoding: .utf8)
        try "tampered\n".write(toFile: "\(root)/alpha.copy", atomically: true, encoding: .utf8)
        let (fixed, _) = try await counted(chained())
        #expect(fixed.hosts["alpha"]?.changed == 2 && fixed.hosts["beta"]?.changed == 0)
        #expect(read("alpha.copy") == "v1\n")
    }
}

extension RunnerTests {
    @Test(
        "with the facts of the last run remembered, every play's probes are read while the facts are gathered: a run that changes nothing makes two round trips per host; facts that changed since plan afresh"
    )
    func readAheadFromRememberedFacts() async throws {
        let root = root
        let memory = FactsMemory(directory: root + "/memory")
        let playbook = Playbook("by name", summary: "") {
            Play("named", on: "all") { host in
                File("\(root)/\(host.facts.hostname).\(host.name)", content: "v1\n", owner: nil, group: nil)
            }
            Play("last", on: "all") { host in
                File("\(root)/\(host.name).last", content: "last\n", owner: nil, group: nil)
            }
        }
        let (first, _) = try await counted(playbook, memory: memory)
        #expect(first.totalChanged == 4)
        let mode = try FileManager.default.attributesOfItem(atPath: memory.directory)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        let (noop, trips) = try await counted(playbook, memory: memory)
        #expect(noop.totalChanged == 0)
        #expect(trips == ["alpha": 2, "beta": 2], "facts, and every play's probes read meanwhile")

        // Remembered under another name, whose file is in step: planned from those facts, the first play would
        // look there and see nothing to do. It plans afresh from the facts it gathers, and makes the file.
        let targets = try ["alpha", "beta"].map { try inventory.target(for: $0) }
        var elsewhere = try #require(memory.facts(of: targets[0]))
        let hostname = elsewhere.hostname
        elsewhere.hostname = "elsewhere"
        for target in targets { memory.remember(elsewhere, of: target) }
        try "v1\n".write(toFile: "\(root)/elsewhere.alpha", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: "\(root)/\(hostname).alpha")
        let (moved, _) = try await counted(playbook, memory: memory)
        #expect(moved.hosts["alpha"]?.changed == 1 && moved.hosts["beta"]?.changed == 0)
        #expect(read("\(hostname).alpha") == "v1\n")
        #expect(memory.facts(of: targets[0])?.hostname == hostname, "the gathered facts are remembered")
    }

    @Test("what was read ahead is taken only when it shows the play converged: a step it would fail is probed afresh")
    func readAheadFailureProbedAgain() async throws {
        let ready = "\(root)/ready"
        let playbook = Playbook("late", summary: "") {
            Play("a moment", on: "alpha") { _ in Command("true", unless: "sleep 1.5") }
            Play("needs it", on: "alpha") { _ in RequiresReady(path: ready) }
        }
        // Ready after the read-ahead, before the second play starts: nothing the run applies makes it so.
        let maker = Task {
            try await Task.sleep(for: .milliseconds(500))
            try "ready".write(toFile: ready, atomically: true, encoding: .utf8)
        }
        let (recap, events) = try await run(playbook)
        try await maker.value
        #expect(recap.hosts["alpha"] == Recap.Counts(ok: 2), "\(events.all)")
    }
}

/// Fails its host unless the file at `path` holds `ready`; changes nothing.
private struct RequiresReady: Resource {
    let path: String
    var description: String { "requires \(path)" }
    var probe: String { "cat \(path) 2>/dev/null" }
    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text == "ready" else { throw ResourceError("\(path) is not ready") }
        return []
    }
    func apply(_ changes: [Change], on host: HostExecutor) async throws {}
}

/// A local transport counting its commands under the host's name.
private struct CountingTransport: Transport {
    let name: String
    let trips: TripCounter

    func run(
        _ command: String, input: [UInt8], become: Become?, timeout: Duration?, outputLimit: Int,
        observe: OutputObserver?
    ) async throws -> ExecResult {
        trips.counts.withLock { $0[name, default: 0] += 1 }
        return try await LocalTransport().run(
            command, input: input, become: become, timeout: timeout, outputLimit: outputLimit, observe: observe)
    }

    func close() async {}
}

/// Commands counted by host name.
private final class TripCounter: Sendable {
    let counts = Mutex<[String: Int]>([:])
}
