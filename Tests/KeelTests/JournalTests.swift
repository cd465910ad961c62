import Foundation
import KeelTestSupport
import Testing

@testable import Keel

/// The engine's journal, run for real on the local machine with its system directories under a temporary root.
@Suite("the journal: a flow's stages run once, a killed run resumes, an unfinished run is not overwritten")
struct JournalTests {
    let host: RootedTransport
    let inventory = try! InventoryFixture(["hosts.ini": "[db]\nalpha\n"]).load("hosts.ini")

    init() throws {
        host = try RootedTransport(
            root: FileManager.default.temporaryDirectory.appendingPathComponent("keel-journal-\(UUID().uuidString)")
                .path)
    }

    /// A run `id` of flow `demo`: two stages appending to /var/lib/out, the second failing while /var/lib/fail exists.
    private func flow(_ id: String, replacing: JournalBegun.Replacing = .over) -> Playbook {
        Playbook("demo", summary: "a flow in stages") {
            Play("stages", on: "db") { _ in
                JournalBegun(flow: "demo", id: id, plan: JournalRecord.encode(["step": 1]), replacing: replacing)
                JournalStage(flow: "demo", id: id, stage: "a", summary: "a", command: "echo a >> /var/lib/out")
                JournalStage(
                    flow: "demo", id: id, stage: "b", summary: "b",
                    command: "[ ! -e /var/lib/fail ] && echo b >> /var/lib/out")
                JournalStage.finished(flow: "demo", id: id)
            }
        }
    }

    private func run(_ playbook: Playbook) async throws -> Recap {
        let host = host
        return try await Runner(inventory: inventory, options: RunOptions(), reporter: CollectingReporter()) { _ in
            host
        }.run(playbook)
    }

    private func records() async throws -> [JournalRecord] {
        JournalRecord.parse(try await host.run(JournalRecord.readAll).stdoutText)
    }

    private var out: String? { try? String(contentsOfFile: host.root + "/var/lib/out", encoding: .utf8) }

    @Test("stopped at a stage, a rerun goes on after the last stage done; a finished run changes nothing")
    func resumes() async throws {
        try host.write("", to: "/var/lib/fail")
        let stopped = try await run(flow("run 1"))
        #expect(stopped.failedHosts == ["alpha"] && out == "a\n")
        let unfinished = try #require(try await records().first)
        #expect(
            unfinished.flow == "demo" && unfinished.id == "run 1" && unfinished.plan == #"{"step":1}"#
                && unfinished.isUnfinished && unfinished.stages == ["a"] && unfinished.began("b"),
            "\(unfinished)")

        try FileManager.default.removeItem(atPath: host.root + "/var/lib/fail")
        _ = try await run(flow("run 1"))
        #expect(out == "a\nb\n", "stage a is not run again")
        let finished = try await records()
        #expect(finished.map(\.isFinished) == [true])
        let again = try await run(flow("run 1"))
        #expect(again.totalChanged == 0 && out == "a\nb\n")

        // The next run replaces a finished one, and runs every stage of its own.
        _ = try await run(flow("run 2"))
        let replaced = try await records()
        #expect(out == "a\nb\na\nb\n" && replaced.map(\.id) == ["run 2"])
    }

    @Test("an unfinished run is replaced only where the new run says it may: that run, or any")
    func replacing() throws {
        let context = HostContext(name: "alpha", inventory: inventory, facts: Facts())
        let unfinished = ProbeOutput(text: "id: run 1\n{}\ndone: a")
        #expect(throws: ResourceError.self) {
            try JournalBegun(flow: "demo", id: "run 2", plan: "{}").changes(from: unfinished, on: context)
        }
        for replacing in [JournalBegun.Replacing.run("run 1"), .any] {
            let begun = JournalBegun(flow: "demo", id: "run 2", plan: "{}", replacing: replacing)
            #expect(try begun.changes(from: unfinished, on: context).count == 1)
        }
        let same = JournalBegun(flow: "demo", id: "run 1", plan: "{}")
        #expect(try same.changes(from: unfinished, on: context).isEmpty, "the run's own record stays")
    }

    @Test("the records of every flow on a host are read in one command; what is not a record is left out")
    func readsEveryFlow() {
        let text =
            "== restore\nid: r\n{\"a\":1}\ndone: stopped\n== update\nid: u\n{}\ndone: finished\n== stray\nnot a record\n"
        let records = JournalRecord.parse(text)
        #expect(records.map(\.flow) == ["restore", "update"])
        #expect(records.map(\.isUnfinished) == [true, false] && records[0].stages == ["stopped"])
        #expect(JournalRecord.parse("").isEmpty)
    }
}
