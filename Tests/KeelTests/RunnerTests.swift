import Foundation
import KeelTestSupport
import Synchronization
import Testing

@testable import Keel

/// The engine end to end on the local machine: real `/bin/sh`, real files in a temporary directory.
@Suite("Runner: plan, apply, converge, handlers")
struct RunnerTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-runner-\(UUID().uuidString)").path
    let inventory = try! InventoryFixture(["hosts.ini": "[web]\nalpha\nbeta\n[all:vars]\ngreeting=hello\n"]).load(
        "hosts.ini")

    init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// A playbook writing per-host files under `root`; handlers append their name to a log.
    func playbook(content: String = "v1") -> Playbook {
        let root = root
        return Playbook("test", summary: "files") {
            Play("files", on: "all") { host in
                Directory("\(root)/\(host.name)", owner: nil, group: nil)
                File("\(root)/\(host.name)/app.conf", content: "\(content) \(host.name)\n", owner: nil, group: nil)
                    .onChange(.run(name: "reload app", command: "echo reload >> \(root)/\(host.name)/handlers.log"))
                File("\(root)/\(host.name)/other.conf", content: "static\n", owner: nil, group: nil)
                    .onChange(.run(name: "restart other", command: "echo restart >> \(root)/\(host.name)/handlers.log"))
                    .onChange(.run(name: "reload app", command: "echo reload >> \(root)/\(host.name)/handlers.log"))
                    .tags("other")
            }
        }
    }

    func run(_ playbook: Playbook, _ options: RunOptions = RunOptions()) async throws -> (Recap, CollectingReporter) {
        let reporter = CollectingReporter()
        let runner = Runner(inventory: inventory, options: options, reporter: reporter) { _ in LocalTransport() }
        return (try await runner.run(playbook), reporter)
    }

    func read(_ path: String) -> String? { try? String(contentsOfFile: "\(root)/\(path)", encoding: .utf8) }

    @Test("first run changes, second run changes nothing; handlers run once each, in order of first notice")
    func idempotent() async throws {
        let (first, firstEvents) = try await run(playbook())
        #expect(first.hosts["alpha"] == Recap.Counts(ok: 0, changed: 3))
        #expect(read("alpha/app.conf") == "v1 alpha\n")
        #expect(firstEvents.handlers(on: "alpha") == ["reload app", "restart other"])
        #expect(read("alpha/handlers.log") == "reload\nrestart\n")

        let (second, secondEvents) = try await run(playbook())
        #expect(second.totalChanged == 0)
        #expect(second.hosts["beta"] == Recap.Counts(ok: 3))
        #expect(secondEvents.handlers(on: "alpha").isEmpty)
    }

    @Test("a step that runs longer than slowStep says so once while it runs, then ends as usual; a quick one does not")
    func slowSteps() async throws {
        let playbook = Playbook("slow", summary: "") {
            Play("slow", on: "alpha") { _ in
                Command("sleep 3")
                Command("true")
            }
        }
        var options = RunOptions()
        options.slowStep = .milliseconds(1500)
        let (recap, events) = try await run(playbook, options)
        #expect(recap.hosts["alpha"]?.changed == 2)
        let lines = events.all.compactMap { event -> String? in
            switch event {
            case .stepRunning(let host, _, let step): "running \(host) \(step)"
            case .step(let report): "\(report.status) \(report.host) \(report.step)"
            default: nil
            }
        }
        #expect(
            lines.prefix(2) == ["running alpha command sleep 3", "changed alpha command sleep 3"]
                && lines.contains("changed alpha command true"), "\(lines)")
        // The quick step is announced only if it really ran past slowStep (a loaded machine may take that long to
        // start `true`): a notice is never early.
        let quick = events.all.compactMap { event -> StepReport? in
            if case .step(let report) = event, report.step == "command true" { report } else { nil }
        }
        #expect(
            lines.count == 3 || (lines.count == 4 && (quick.first?.seconds ?? 0) >= 1.5),
            "\(lines), the quick step took \(quick.first?.seconds ?? -1) s")
        let console = Mutex("")
        ConsoleReporter(colors: false) { chunk in console.withLock { $0 += chunk } }.report(
            .stepRunning(host: "alpha", play: "slow", step: "command sleep 0.6"))
        #expect(console.withLock { $0 } == "alpha | running | command sleep 0.6 …\n")
    }

    @Test("on a terminal, a running step is a live line redrawn in place; its result replaces it; the recap ends it")
    func liveLines() async throws {
        let screen = Mutex("")
        let console = ConsoleReporter(colors: false, live: true, noticeDelay: .seconds(5)) { chunk in
            screen.withLock { $0 += chunk }
        }
        console.report(.stepRunning(host: "alpha", play: "slow", step: "package postgresql-15"))
        #expect(screen.withLock { $0 }.hasSuffix("alpha | running | package postgresql-15 … 5 s\n"))
        // Redrawn in place every second: up one line, cleared, drawn again with the time it has run.
        let redraw = "\u{1B}[1F\u{1B}[Jalpha | running | package postgresql-15 … "
        var seconds = 5
        for _ in 0..<100 where seconds < 6 {
            try await Task.sleep(for: .milliseconds(100))
            let last = screen.withLock { $0 }.components(separatedBy: redraw).last ?? ""
            seconds = Int(last.prefix { $0.isNumber }) ?? 5
        }
        #expect(seconds >= 6, "\(screen.withLock { $0 })")
        let done = StepReport(
            host: "alpha", play: "slow", step: "package postgresql-15", status: .changed, changes: [], commands: [],
            diffs: [], seconds: 41, error: nil)
        console.report(.step(done))
        #expect(screen.withLock { $0 }.hasSuffix("\u{1B}[1F\u{1B}[Jalpha | changed | package postgresql-15 (41.0 s)\n"))
        console.report(.finished(Recap()))
        let final = screen.withLock { $0 }
        try await Task.sleep(for: .milliseconds(1200))
        #expect(screen.withLock { $0 } == final, "nothing drawn after the recap")
    }

    @Test("a live line longer than the terminal cuts the step's name, never the seconds it has run")
    func liveLineCut() {
        let screen = Mutex("")
        let console = ConsoleReporter(colors: false, live: true, noticeDelay: .seconds(5)) { chunk in
            screen.withLock { $0 += chunk }
        }
        let step = "package " + Array(repeating: "python3-something", count: 30).joined(separator: " ")
        console.report(.stepRunning(host: "alpha", play: "slow", step: step))
        let line = screen.withLock { $0 }.split(separator: "\n").last.map(String.init) ?? ""
        console.report(.finished(Recap()))
        #expect(
            line.hasPrefix("alpha | running | package python3-something") && line.hasSuffix("… … 5 s")
                && line.count < step.count, "\(line)")
    }

    @Test("a live line ends with the last line its command printed: made safe, secrets masked, cut before the step")
    func liveLinePrinted() async throws {
        let screen = Mutex("")
        let console = ConsoleReporter(colors: false, live: true, noticeDelay: .seconds(5)) { chunk in
            screen.withLock { $0 += chunk }
        }
        let secret = Secret("printed-\(UUID().uuidString.prefix(8))")
        let long = "package " + Array(repeating: "python3-something", count: 10).joined(separator: " ")
        console.report(.stepRunning(host: "alpha", play: "slow", step: "install packages"))
        console.report(.stepRunning(host: "beta", play: "slow", step: long))
        let printed = "\u{1B}[2Jpg \(secret.reveal()) " + String(repeating: "x", count: 200)
        console.report(.stepOutput(host: "alpha", line: printed))
        console.report(.stepOutput(host: "beta", line: printed))
        var block: [String] = []
        for _ in 0..<30 where !block.contains(where: { $0.contains("▸") }) {
            try await Task.sleep(for: .milliseconds(100))
            block = (screen.withLock { $0 }.components(separatedBy: "\u{1B}[J").last ?? "").split(separator: "\n")
                .map(String.init)
        }
        console.report(.finished(Recap()))
        #expect(block.count == 2, "\(block)")
        let (alpha, beta) = (block.first ?? "", block.last ?? "")
        #expect(alpha.hasPrefix("alpha | running | install packages … "), "\(alpha)")
        #expect(alpha.contains(" s  ▸ \\u{1B}[2Jpg *** xxx") && alpha.hasSuffix("x…"), "\(alpha)")
        // A long step name and the printed line share the room, each cut.
        #expect(beta.hasPrefix("beta | running | package python3-something") && beta.contains("… … "), "\(beta)")
        #expect(beta.contains(" s  ▸ \\u{1B}[2Jpg ") && beta.hasSuffix("…"), "\(beta)")
        #expect(alpha.count == 79 && beta.count == 79, "cut to the terminal's width (80 when it does not say)")
    }

    @Test("a command's output heard in chunks tells each last line it completed; a carriage return ends one too")
    func lastOutputLine() {
        let told = Mutex<[String]>([])
        let output = LastOutputLine { line in told.withLock { $0.append(line) } }
        for chunk in ["Get:1 http", " ok\nUnpack", "ing a\r 45%\r\n\n", "  \n", "Setting up b"] {
            output.take(Array(chunk.utf8))
        }
        #expect(told.withLock { $0 } == ["Get:1 http ok", "45%"])
    }

    @Test("what a step's apply tells (a measured time) follows its changes in the report; --check tells nothing")
    func findings() async throws {
        struct Measured: Resource {
            var description: String { "measured" }
            var probe: String { "true" }
            func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
                [Change("measure", .shell("echo took=1.5"))]
            }
            func apply(_ changes: [Change], on host: HostExecutor) async throws {
                let took = ProbeOutput(text: try await host.run("echo took=1.5").stdoutText).fields["took"] ?? "?"
                host.tell("took \(took) s")
            }
            var alwaysChanges: Bool { true }
        }
        let playbook = Playbook("findings", summary: "") { Play("measured", on: "alpha") { _ in Measured() } }
        let (_, applied) = try await run(playbook)
        #expect(applied.steps.map(\.changes) == [["measure", "took 1.5 s"]])
        var check = RunOptions()
        check.check = true
        let (_, checked) = try await run(playbook, check)
        #expect(checked.steps.map(\.changes) == [["measure"]])
    }

    @Test("facts already read this run are not read again: the steps see them")
    func knownFacts() async throws {
        let playbook = Playbook("facts", summary: "") {
            Play("facts", on: "alpha,beta") { host in
                File("\(root)/\(host.name)-hostname", content: host.facts.hostname + "\n")
            }
        }
        var known = Facts()
        known.hostname = "read-before-the-run"
        let reporter = CollectingReporter()
        var runner = Runner(inventory: inventory, options: RunOptions(), reporter: reporter) { _ in LocalTransport() }
        runner.knownFacts = ["alpha": known]
        _ = try await runner.run(playbook)
        #expect(read("alpha-hostname") == "read-before-the-run\n")
        let beta = read("beta-hostname") ?? ""
        #expect(beta != "read-before-the-run\n" && beta.count > 1, "beta's own facts, read by the run: \(beta)")
    }

    @Test("a file edited by hand: exactly that step and its handler change, on that host only")
    func drift() async throws {
        _ = try await run(playbook())
        try "tampered\n".write(toFile: "\(root)/beta/app.conf", atomically: true, encoding: .utf8)
        let (recap, events) = try await run(playbook())
        #expect(events.changed == ["beta: file \(root)/beta/app.conf"])
        #expect(events.handlers(on: "beta") == ["reload app"])
        #expect(events.handlers(on: "alpha").isEmpty)
        #expect(recap.hosts["alpha"]?.changed == 0)
    }

    @Test("--check reports the diff and the would-be handler, changes nothing, and the recap says so")
    func checkMode() async throws {
        _ = try await run(playbook())
        let (recap, events) = try await run(playbook(content: "v2"), RunOptions(check: true))
        #expect(recap.checkMode && recap.totalChanged == 2)
        let step = try #require(events.steps.first { $0.host == "alpha" && $0.status == .changed })
        #expect(step.diffs.first?.contains("-v1 alpha\n+v2 alpha\n") == true)
        #expect(events.handlers(on: "alpha") == ["reload app"])
        #expect(read("alpha/app.conf") == "v1 alpha\n")
        #expect(read("alpha/handlers.log") == "reload\nrestart\n")
    }

    @Test("--diff while applying shows what the file held before")
    func diffWhileApplying() async throws {
        _ = try await run(playbook())
        let (recap, events) = try await run(playbook(content: "v2"), RunOptions(diff: true))
        #expect(!recap.checkMode && read("alpha/app.conf") == "v2 alpha\n")
        let step = try #require(events.steps.first { $0.host == "alpha" && $0.status == .changed })
        #expect(step.diffs.first?.contains("-v1 alpha\n+v2 alpha\n") == true, "\(step.diffs)")
    }

    /// Asks the run to stop while it is planned (a Ctrl-C arriving during the step before).
    struct AskToStop: Resource {
        let stop: StopRequest
        var description: String { "ask to stop" }
        var probe: String { "true" }
        func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
            stop.request()
            return []
        }
    }

    @Test(
        "asked to stop, a run finishes the step in flight and its handlers, starts no other, and says what did not run")
    func stopBetweenSteps() async throws {
        let root = root
        let stop = StopRequest()
        let playbook = Playbook("test", summary: "stop") {
            Play("first", on: "alpha") { host in
                File("\(root)/app.conf", content: "v1\n", owner: nil, group: nil)
                    .onChange(.run(name: "reload app", command: "echo reload >> \(root)/handlers.log"))
                AskToStop(stop: stop)
                File("\(root)/later.conf", content: "v1\n", owner: nil, group: nil)
            }
            Play("second", on: "alpha") { _ in File("\(root)/second.conf", content: "v1\n", owner: nil, group: nil) }
        }
        let (recap, _) = try await run(playbook, RunOptions(stop: stop))
        #expect(read("app.conf") == "v1\n" && read("handlers.log") == "reload\n")
        #expect(read("later.conf") == nil && read("second.conf") == nil)
        #expect(recap.interrupted && recap.notRun == ["alpha": 1] && recap.failedHosts.isEmpty)
    }

    @Test("--tags and --skip-tags select steps")
    func tags() async throws {
        _ = try await run(playbook())
        let (only, onlyEvents) = try await run(playbook(content: "v2"), RunOptions(tags: ["other"]))
        #expect(onlyEvents.steps.filter { $0.host == "alpha" }.map(\.step) == ["file \(root)/alpha/other.conf"])
        #expect(only.totalChanged == 0 && read("alpha/app.conf") == "v1 alpha\n")
        let (skipped, skippedEvents) = try await run(playbook(content: "v2"), RunOptions(skipTags: ["other"]))
        #expect(skippedEvents.steps.filter { $0.host == "alpha" }.count == 2)
        #expect(skipped.hosts["alpha"]?.changed == 1 && read("alpha/app.conf") == "v2 alpha\n")
    }

    @Test("a failing step fails its host, still runs the handlers of changes already made, and names the command")
    func failure() async throws {
        let root = root
        let failing = Playbook("failing", summary: "") {
            Play("break", on: "alpha") { _ in
                File("\(root)/first.conf", content: "x\n", owner: nil, group: nil)
                    .onChange(.run(name: "note", command: "echo ran > \(root)/note"))
                Command("echo boom >&2; exit 7")
                File("\(root)/never.conf", content: "x\n", owner: nil, group: nil)
            }
            Play("after", on: "all") { _ in
                File("\(root)/after.conf", content: "x\n", owner: nil, group: nil)
            }
        }
        let (recap, events) = try await run(failing)
        #expect(recap.failedHosts == ["alpha"])
        let failed = try #require(events.steps.first { $0.status == .failed })
        #expect(failed.error == "`echo boom >&2; exit 7` exited 7: boom")
        #expect(read("never.conf") == nil)
        #expect(read("note") == "ran\n")
        #expect(!events.steps.contains { $0.host == "alpha" && $0.play == "after" })
        #expect(events.steps.contains { $0.host == "beta" && $0.play == "after" && $0.status == .changed })
    }

    @Test(
        "consecutive file steps are applied in one round trip: contents and modes exact, nothing temporary left, and a failure laid at its own step"
    )
    func fileBatch() async throws {
        let root = root
        try "in the way\n".write(toFile: "\(root)/blocked", atomically: true, encoding: .utf8)
        // Written from the script as a shell word, and (NUL, not UTF-8, large) from the input after it.
        let contents: [(name: String, bytes: [UInt8])] = [
            ("quoted", Array("it's $HOME `id` \\ %s \"x\"\n\n".utf8)), ("empty", []),
            ("binary", [0x61, 0, 0xff, 0x0a]), ("large", Array(repeating: 0x41, count: 70_000) + [0x27, 0x0a]),
        ]
        let files = Playbook("files", summary: "") {
            Play("write", on: "alpha") { _ in
                for (name, bytes) in contents {
                    File("\(root)/\(name)", contents: .bytes(bytes), owner: nil, group: nil)
                }
                File("\(root)/secret.conf", content: "s\n", mode: 0o600, owner: nil, group: nil)
                    .onChange(.run(name: "note", command: "echo ran > \(root)/note"))
                File("\(root)/tool", content: "#!/bin/sh\n", mode: 0o755, owner: nil, group: nil)
                File("\(root)/blocked/inside.conf", content: "x\n", owner: nil, group: nil)
                File("\(root)/never.conf", content: "x\n", owner: nil, group: nil)
            }
        }
        let (recap, events) = try await run(files)
        #expect(recap.failedHosts == ["alpha"])
        #expect(events.steps.map(\.status) == Array(repeating: .changed, count: contents.count + 2) + [.failed])
        for (name, bytes) in contents {
            #expect(FileManager.default.contents(atPath: "\(root)/\(name)") == Data(bytes), "\(name)")
        }
        let failed = try #require(events.steps.last)
        #expect(failed.step == "file \(root)/blocked/inside.conf")
        #expect(failed.error?.hasPrefix("`upload \(root)/blocked/inside.conf (2 bytes, mode 0644)` exited") == true)
        #expect(read("secret.conf") == "s\n")
        #expect(
            try FileManager.default.attributesOfItem(atPath: "\(root)/secret.conf")[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: "\(root)/tool")[.posixPermissions] as? Int == 0o755)
        #expect(read("never.conf") == nil)
        #expect(read("note") == "ran\n", "the handler of a file written before the failure runs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix(".keel") }.isEmpty)
    }

    @Test(
        "the probe proving a batch converged runs in the batch's round trip, its output no part of the command's report"
    )
    func batchProvedInItsRoundTrip() async throws {
        let root = root
        let files = Playbook("files", summary: "") {
            Play("write", on: "alpha") { _ in
                File("\(root)/one", content: "1\n", owner: nil, group: nil)
                File("\(root)/two", content: "2\n", owner: nil, group: nil)
            }
        }
        let (recap, events) = try await run(files)
        #expect(recap.failedHosts.isEmpty && events.steps.map(\.status) == [.changed, .changed])
        let outputs = events.all.compactMap { if case .command(_, _, _, let stdout, _) = $0 { stdout } else { nil } }
        #expect(outputs == ["keel-step-done\nkeel-step-done\n"], "\(outputs)")
        let (_, again) = try await run(files)
        #expect(again.steps.map(\.status) == [.ok, .ok])
    }

    @Test(
        "a new directory and what goes in it are made together and appear whole: modes exact, nothing temporary left; a failure in it leaves none of it"
    )
    func newTree() async throws {
        let root = root
        let mode = { (path: String) in
            try FileManager.default.attributesOfItem(atPath: "\(root)/\(path)")[.posixPermissions] as? Int
        }
        let tree = { (twice: Bool) in
            Playbook("tree", summary: "") {
                Play("make", on: "alpha") { _ in
                    Directory("\(root)/tree/top", mode: 0o750, owner: nil, group: nil)
                    File("\(root)/tree/top/a.conf", content: "a\n", owner: nil, group: nil)
                    Directory("\(root)/tree/top/private", mode: 0o700, owner: nil, group: nil)
                    File("\(root)/tree/top/private/key", content: "k\n", mode: 0o600, owner: nil, group: nil)
                    File("\(root)/tree/top/private/tool", content: "#!/bin/sh\n", mode: 0o755, owner: nil, group: nil)
                    if twice { File("\(root)/tree/top/a.conf", content: "again\n", owner: nil, group: nil) }
                }
            }
        }
        // The second write of one path finds the first in its way (files are made exclusively): the tree fails.
        let (failed, failedEvents) = try await run(tree(true))
        #expect(failed.failedHosts == ["alpha"])
        #expect(failedEvents.steps.map(\.status) == [.failed])
        let error = try #require(failedEvents.steps.first?.error)
        #expect(
            error.hasPrefix("this step and the next 5, made as one new tree, left nothing: `mkdir -p -m 0750"),
            "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/tree").isEmpty)

        let (recap, events) = try await run(tree(false))
        #expect(recap.failedHosts.isEmpty && events.steps.map(\.status) == Array(repeating: .changed, count: 5))
        #expect(read("tree/top/a.conf") == "a\n" && read("tree/top/private/key") == "k\n")
        #expect(
            try [mode("tree/top"), mode("tree/top/private"), mode("tree/top/private/key")] == [0o750, 0o700, 0o600])
        #expect(try mode("tree/top/a.conf") == 0o644 && mode("tree/top/private/tool") == 0o755)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/tree") == ["top"])
        let (again, _) = try await run(tree(false))
        #expect(again.totalChanged == 0)
    }

    /// A step that can be batched, and whose state after its change cannot be planned from.
    struct BreaksWhenApplied: Resource {
        let path: String
        var description: String { "breaks \(path)" }
        var probe: String { "cat \(shellQuote(path)) 2>/dev/null" }
        var isBatchable: Bool { true }
        func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
            guard output.text.isEmpty else { throw ResourceError("\(path) holds \(output.text)") }
            return [Change("write", .shell("echo broken > \(path)"))]
        }
    }

    @Test("in a batch, a step whose state after applying cannot be read is failed, not taken as converged")
    func batchUnreadableAfterApply() async throws {
        let root = root
        let playbook = Playbook("breaks", summary: "") {
            Play("write", on: "alpha") { _ in
                File("\(root)/first.conf", content: "x\n", owner: nil, group: nil)
                BreaksWhenApplied(path: "\(root)/state")
            }
        }
        let (recap, events) = try await run(playbook)
        #expect(recap.failedHosts == ["alpha"])
        #expect(events.steps.map(\.status) == [.changed, .failed])
        #expect(events.steps.last?.error == "\(root)/state holds broken")
    }

    @Test("the step builder flattens roles, if and for; modifiers carry over")
    func builder() throws {
        struct Base: Role {
            let host: HostContext
            var steps: [Step] {
                Directory("/srv/\(host.name)")
                if host.isMember(of: "web") { Package("nginx-light").tags("web") }
            }
        }
        let play = Play("p", on: "all") { host in
            Base(host: host).steps
            for index in 1...2 { File("/srv/\(index)", content: "\(index)") }
            if host.name == "nobody" { Package("never") } else { Command("true", creates: "/x").retries(2).runOnce() }
        }
        let steps = try play.body(HostContext(name: "alpha", inventory: inventory, facts: Facts()))
        #expect(
            steps.map(\.name) == [
                "directory /srv/alpha", "package nginx-light", "file /srv/1", "file /srv/2", "command true",
            ])
        #expect(steps[1].tags == ["web"])
        #expect(steps[4].retries == 2 && steps[4].runOnce)
    }

    @Test("the plan renders per host, with diffs and a check-mode recap")
    func planRendering() async throws {
        _ = try await run(playbook())
        let text = Mutex("")
        let console = ConsoleReporter(colors: false) { chunk in text.withLock { $0 += chunk } }
        let runner = Runner(inventory: inventory, options: RunOptions(check: true), reporter: console) { _ in
            LocalTransport()
        }
        _ = try await runner.run(playbook(content: "v2"))
        let output = text.withLock { $0 }
        // A step that took half a second or more shows its time (a loaded machine).
        let step = "alpha | changed | file \(root)/alpha/app.conf"
        #expect(
            output.replacingOccurrences(of: #" \(\d+\.\d s\)\n"#, with: "\n", options: .regularExpression)
                .contains(step + "\n      - contents (9 bytes)\n"), "\(output)")
        #expect(output.contains("        -v1 alpha\n        +v2 alpha\n"))
        #expect(output.contains("alpha | changed | handler reload app"))
        #expect(output.contains("PLAN RECAP (--check: nothing was changed)"))
        #expect(output.contains("alpha : ok=2 would change=1 failed=0 skipped=0 unreachable=0"))
    }

    @Test("--profile: each play's wall time, its share and its longest step, after the recap")
    func profile() async throws {
        let timed = Playbook("timed", summary: "") {
            Play("quick", on: "all") { _ in Command("true") }
            Play("slow", on: "all") { _ in
                Command("sleep 1.5")
                Command("true")
            }
        }
        let text = Mutex("")
        let profile = ProfileReporter { chunk in text.withLock { $0 += chunk } }
        let runner = Runner(inventory: inventory, options: RunOptions(), reporter: profile) { _ in LocalTransport() }
        _ = try await runner.run(timed)
        let lines = text.withLock { $0 }.split(separator: "\n").map(String.init)
        let slow = try #require(lines.first { $0.contains("%  slow ") }, "\(lines)")
        let wall = Double(slow.split(separator: " ").first ?? "") ?? 0
        #expect(wall >= 1.5 && slow.contains(": command sleep 1.5; rest "), "\(slow)")
        #expect(lines.contains { $0.contains("%  quick ") && $0.contains(": command true; rest ") }, "\(lines)")
        #expect(lines.last?.hasSuffix(" s        total") == true, "\(lines)")
    }

    @Test("serial batches run one host at a time; any_errors_fatal stops the run at the first failure")
    func serialAndFatal() async throws {
        let root = root
        let rolling = Playbook("rolling", summary: "") {
            Play("rolling", on: "all", serial: 1, anyErrorsFatal: true) { host in
                Command("date +%s%N >> \(root)/order; echo \(host.name) >> \(root)/order; test \(host.name) != alpha")
            }
            Play("never", on: "all") { _ in File("\(root)/never", content: "x", owner: nil, group: nil) }
        }
        let (recap, _) = try await run(rolling)
        #expect(recap.failedHosts == ["alpha"])
        #expect(read("order")?.contains("beta") == false)
        #expect(read("never") == nil)
    }

    @Test("retries repeat a failing step until it succeeds; run-once steps run on the first host only")
    func retriesAndRunOnce() async throws {
        let root = root
        let flaky = Playbook("flaky", summary: "") {
            Play("flaky", on: "all") { host in
                Command(
                    "echo x >> \(root)/\(host.name).tries; [ $(wc -l < \(root)/\(host.name).tries) -ge 3 ] && touch \(root)/\(host.name).done",
                    creates: "\(root)/\(host.name).done"
                )
                .retries(3, delay: .milliseconds(10))
                Command("echo \(host.name) >> \(root)/once", creates: "\(root)/once").runOnce()
            }
        }
        let (recap, events) = try await run(flaky)
        #expect(recap.failedHosts.isEmpty)
        #expect(read("alpha.tries") == "x\nx\nx\n")
        #expect(read("once") == "alpha\n")
        #expect(events.steps.contains { $0.host == "beta" && $0.status == .skipped })
    }

    @Test("a secret never reaches the report, even when a command prints it")
    func secretsMasked() async throws {
        let token = Secret("s3cr3t-token-value")
        let root = root
        let leaky = Playbook("leaky", summary: "") {
            Play("leaky", on: "alpha") { _ in
                Command("echo \(token.reveal()) >&2; exit 1")
                File("\(root)/token", contents: .secret(token), owner: nil, group: nil)
            }
        }
        let text = Mutex("")
        let console = ConsoleReporter(verbosity: .output, colors: false) { chunk in text.withLock { $0 += chunk } }
        let runner = Runner(inventory: inventory, options: RunOptions(), reporter: console) { _ in LocalTransport() }
        _ = try await runner.run(leaky)
        let output = text.withLock { $0 }
        #expect(output.contains("exited 1: ***"))
        #expect(!output.contains("s3cr3t-token-value"))
    }
}
