import Foundation
import KeelTestSupport
import Testing

@testable import Keel

extension RunnerTests {
    @Test("a wait that had to wait is ok, not a change, and notifies nothing")
    func waitIsNotAChange() async throws {
        let root = root
        let ready = Playbook("wait", summary: "a wait") {
            Play("later", on: "alpha") { _ in
                Command("sleep 1; touch \(root)/ready").named("make ready later")
            }
        }
        let waiting = Playbook("wait", summary: "a wait") {
            Play("wait", on: "alpha") { _ in
                WaitFor(
                    .command("[ -e \(root)/ready ]", what: "the ready file"), timeout: .seconds(10),
                    interval: .milliseconds(200)
                )
                .onChange(.run(name: "never", command: "touch \(root)/never"))
            }
        }
        async let waited = run(waiting)
        try await Task.sleep(for: .milliseconds(300))
        _ = try await run(ready)
        let (recap, events) = try await waited
        #expect(recap.hosts["alpha"] == Recap.Counts(ok: 1))
        #expect(events.steps.first?.changes == ["wait up to 10 s"])
        #expect(read("never") == nil)
    }

    @Test("a wait whose condition held is ok, even when it no longer holds a moment later")
    func momentaryWaitHolds() async throws {
        // True on the condition's second evaluation only: false when planned, true in the wait, false afterwards.
        let counter = "\(root)/evaluations"
        let secondOnly = "n=$(cat \(counter) 2>/dev/null || echo 0); echo $((n + 1)) > \(counter); [ \"$n\" = 1 ]"
        let playbook = Playbook("wait", summary: "a momentary condition") {
            Play("wait", on: "alpha") { _ in
                WaitFor(
                    .command(.raw(secondOnly), what: "the second check"), timeout: .seconds(10),
                    interval: .milliseconds(100))
            }
        }
        let (recap, _) = try await run(playbook)
        #expect(recap.hosts["alpha"] == Recap.Counts(ok: 1))
        #expect(Int(read("evaluations")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0 >= 2)
    }

    @Test("a service notified for a reload and a restart restarts once, where it was first notified")
    func restartCoversReload() {
        let merged = Handler.merged([
            .reload("a"), .run(name: "x", command: "true"), .restart("a"), .restartIfRunning("a"), .reload("b"),
        ])
        #expect(merged == [.restart("a"), .run(name: "x", command: "true"), .reload("b")])
    }

    @Test("a rolling restart marks the host, and the marked step restarts it once, then forgets the mark")
    func rollingRestart() async throws {
        let root = root
        let restart = RollingRestart(
            "keel-test-\(UUID().uuidString)", command: "echo restarted >> \(root)/restarts", ready: "true")
        let marked = MarkedRestart(
            mark: "\(root)/mark", summary: "restart", command: restart.command, ready: restart.ready)
        try "".write(toFile: "\(root)/mark", atomically: true, encoding: .utf8)
        let playbook = Playbook("restarts", summary: "due restarts") {
            Play("restarts", on: "alpha", serial: 1) { _ in marked }
        }
        let (first, _) = try await run(playbook)
        #expect(first.totalChanged == 1 && read("restarts") == "restarted\n" && read("mark") == nil)
        let (second, _) = try await run(playbook)
        #expect(second.totalChanged == 0 && read("restarts") == "restarted\n")
    }
}

extension RunnerTests {
    @Test("a guard play sees all its hosts whatever --limit selects; the other plays only the selected ones")
    func guardIgnoresLimit() async throws {
        let root = root
        let playbook = Playbook("test", summary: "guarded") {
            Play("check", on: "all", guarding: true, tags: ["always"]) { host in
                File("\(root)/guard-\(host.name)", content: "seen\n", owner: nil, group: nil)
            }
            Play("work", on: "all", tags: ["work"]) { host in
                File("\(root)/work-\(host.name)", content: "done\n", owner: nil, group: nil)
            }
        }
        _ = try await run(playbook, RunOptions(tags: ["work"], limit: "beta"))
        #expect(read("guard-alpha") == "seen\n" && read("guard-beta") == "seen\n")
        #expect(read("work-alpha") == nil && read("work-beta") == "done\n")
    }
}

extension RunnerTests {
    @Test(
        "root's own directories and files made in a setgid directory of another group are root's, with exactly their modes; the second run changes nothing",
        .enabled(if: getuid() == 0, "runs as root, as Keel's plays do"))
    func rootsOwnInSetgidDirectory() async throws {
        let shared = "\(root)/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        _ = try Shell.run("/bin/chgrp", ["nogroup", shared])
        // Not writable by the group: a folder another group may write is that group's (``PathController``).
        chmod(shared, 0o2755)
        let playbook = Playbook("test", summary: "root's paths in a setgid directory") {
            Play("paths", on: "alpha") { _ in
                Directory("\(shared)/private", mode: 0o700)
                File("\(shared)/private/app.conf", content: "x\n", mode: 0o640)
                File("\(shared)/app.conf", content: "y\n", mode: 0o644)
            }
        }
        let (first, events) = try await run(playbook)
        #expect(first.failedHosts.isEmpty && first.totalChanged == 3, "\(events.steps.map { ($0.step, $0.error) })")
        let modes = [
            ("\(shared)/private", 0o700), ("\(shared)/private/app.conf", 0o640), ("\(shared)/app.conf", 0o644),
        ]
        for (path, mode) in modes {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect(attributes[.groupOwnerAccountName] as? String == "root", "\(path)")
            #expect(attributes[.ownerAccountName] as? String == "root", "\(path)")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == mode, "\(path)")
        }
        let (again, _) = try await run(playbook)
        #expect(again.totalChanged == 0)
    }

    @Test(
        "a link planted in a directory another account owns: --check --diff never shows its target, the run replaces the link as that account, the target is untouched",
        .enabled(if: getuid() == 0, "runs as root, as Keel's plays do"))
    func plantedLink() async throws {
        let root = root
        let home = "\(root)/home"
        let target = "\(root)/root-only"
        try "root's secret\n".write(toFile: target, atomically: true, encoding: .utf8)
        chmod(target, 0o600)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chmod(root, 0o755)
        _ = try Shell.run("/bin/chown", ["nobody", home])
        try FileManager.default.createSymbolicLink(atPath: "\(home)/known_hosts", withDestinationPath: target)
        let playbook = Playbook("test", summary: "a file in nobody's directory") {
            Play("files", on: "alpha") { _ in
                File("\(home)/known_hosts", content: "pinned\n", mode: 0o644, owner: "nobody", group: nil)
            }
        }
        let (_, checked) = try await run(playbook, RunOptions(check: true, diff: true))
        let shown = checked.steps.flatMap(\.diffs).joined()
        #expect(!shown.contains("secret"), "the diff shows the link's target: \(shown)")
        #expect(shown.contains("+pinned"), "\(shown)")

        let (recap, _) = try await run(playbook)
        #expect(recap.failedHosts.isEmpty)
        let placed = try FileManager.default.attributesOfItem(atPath: "\(home)/known_hosts")
        #expect(placed[.type] as? FileAttributeType == .typeRegular, "the link is replaced by a file")
        #expect(placed[.ownerAccountName] as? String == "nobody")
        #expect(try String(contentsOfFile: "\(home)/known_hosts", encoding: .utf8) == "pinned\n")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "root's secret\n", "the target is untouched")
        let targetAttributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect(targetAttributes[.ownerAccountName] as? String == "root")
        #expect((targetAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let (again, _) = try await run(playbook)
        #expect(again.totalChanged == 0)
    }
}
