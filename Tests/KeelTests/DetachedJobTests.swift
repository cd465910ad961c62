import Foundation
import KeelTestSupport
import Testing

@testable import Keel

/// A detached job's script run by the local shell, with systemd's two commands played by small scripts (the unit a
/// process of its own session; the lab's tests use the real systemd): output followed, status kept, nothing left,
/// and the job going on when its follower is killed.
@Suite("Detached jobs run to their end")
struct DetachedJobTests {
    /// A folder with stand-ins for `systemd-run` (starts the command after its options in a session of its own,
    /// remembering its process) and `systemctl show -P MainPID` (that process while it lives, else 0).
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("keel-jobs-\(UUID().uuidString)").path
        // Modes set outright: a keeper test elsewhere in this process may hold the umask at 0177 for a moment.
        try FileManager.default.createDirectory(
            atPath: folder + "/bin", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        chmod(folder, 0o755)
        let run = """
            #!/bin/sh
            while [ $# -gt 0 ]; do case $1 in -p) shift 2;; -*) shift;; *) break;; esac; done
            setsid "$@" </dev/null >/dev/null 2>&1 &
            echo $! > \(folder)/pid
            """
        let show = """
            #!/bin/sh
            p=$(cat \(folder)/pid); if kill -0 "$p" 2>/dev/null; then echo "$p"; else echo 0; fi
            """
        for (name, text) in [("systemd-run", run), ("systemctl", show)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/bin/\(name)"))
            chmod("\(folder)/bin/\(name)", 0o755)
        }
    }

    private func script(_ command: String) -> String {
        "PATH=\(folder)/bin:$PATH; " + DetachedJob.script(command, seconds: 60, directory: folder + "/jobs").text
    }

    private var leftovers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder + "/jobs")) ?? [] }

    @Test("its output is followed, its error comes at its end, its status is the script's, and nothing is left")
    func followed() async throws {
        let result = try await LocalTransport().run(
            script("echo one; sleep 0.5; echo two; echo broken >&2; exit 3"))
        #expect(result.exitStatus == 3)
        #expect(result.stdoutText == "one\ntwo\n")
        #expect(result.stderrText == "broken\n")
        #expect(leftovers.isEmpty, "\(leftovers)")
        let quick = try await LocalTransport().run(script("echo done"))
        #expect(quick.exitStatus == 0 && quick.stdoutText == "done\n")
    }

    @Test("killing its follower does not end the job: it writes its status, and the probe sees it run until then")
    func outlivesItsFollower() async throws {
        // The job waits for `go`, which comes once its follower is killed: no step here leans on timing (the
        // cooperative pool may leave this task waiting for seconds while other suites run).
        let (go, marker) = (folder + "/go", folder + "/finished")
        let follower = try Shell.spawn(
            "/bin/sh",
            ["-c", script("echo started; while [ ! -e \(go) ]; do sleep 0.1; done; touch \(marker)")],
            stdin: "/dev/null", output: folder + "/follower.log")
        let begun = { () -> Bool in
            leftovers.contains { name in
                name.hasSuffix(".out")
                    && (try? String(contentsOfFile: folder + "/jobs/" + name, encoding: .utf8)) == "started\n"
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while !begun(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try #require(begun(), "\(leftovers)")
        kill(follower, SIGKILL)
        _ = Shell.wait(follower)
        let mayRun = DetachedJob.mayRun.text.replacingOccurrences(of: DetachedJob.directory, with: folder + "/jobs")
        let during = try await LocalTransport().run("if \(mayRun); then echo running; fi")
        #expect(during.stdoutText == "running\n", "\(during.stderrText) \(leftovers)")
        FileManager.default.createFile(atPath: go, contents: nil)
        let ended = { leftovers.contains { $0.hasSuffix(".rc") } }
        while !ended(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(FileManager.default.fileExists(atPath: marker), "the job ran to its end")
        #expect(ended(), "its status waits for a follower: \(leftovers)")
        let after = try await LocalTransport().run("if \(mayRun); then echo running; else echo ended; fi")
        #expect(after.stdoutText == "ended\n")
    }

    @Test("a detached step is never batched with others, and a Command asks for one only when told")
    func declaredByTheStep() throws {
        #expect(!ActionBatch.accepts(.detached("apt-get install -y x")))
        #expect(ActionBatch.accepts(.shell("true")))
        let host = HostContext(
            name: "pg1", inventory: try InventoryFixture(["hosts.ini": "[db]\npg1\n"]).load("hosts.ini"),
            facts: Facts())
        let detached = try Command("dpkg -i x.deb", unless: "false", detached: true)
            .changes(from: ProbeOutput(text: "guard=unsatisfied"), on: host)
        guard case .detached = detached[0].actions[0].kind else {
            Issue.record("not detached: \(detached[0].actions[0])")
            return
        }
        let plain = try Command("true", unless: "false").changes(from: ProbeOutput(text: "guard=unsatisfied"), on: host)
        guard case .shell = plain[0].actions[0].kind else {
            Issue.record("detached: \(plain[0].actions[0])")
            return
        }
        let package = try Package("curl").changes(from: ProbeOutput(text: "curl=missing"), on: host)
        guard case .detached = package[0].actions[0].kind else {
            Issue.record("a package step is not detached: \(package[0].actions[0])")
            return
        }
    }
}
