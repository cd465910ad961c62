import Foundation
import KeelTestSupport
import Testing

@testable import Keel

@Suite("Probe batches, diffs, checksums and facts")
struct EngineSupportTests {
    @Test("a batch splits back per probe, whatever each probe printed")
    func probeBatch() async throws {
        let batch = ProbeBatch(["echo one", "printf 'no newline'", "true", "echo x; exit 3", "printf 'a\\n\\n'"])
        let result = try await LocalTransport().run(batch.script)
        let outputs = try batch.split(result.stdoutText)
        #expect(outputs.map(\.text) == ["one", "no newline", "", "x", "a\n"])
        #expect(throws: ResourceError.self) { try batch.split("one\n") }
    }

    @Test(
        "probes that do not wait run one after another in the script's shell, with no temporary files; one that may wait brings the lanes"
    )
    func probesInSequence() async throws {
        let probes = ["echo one", "false", "", "printf 'a\\n\\n'"]
        let sequence = ProbeBatch(probes, waiting: [false, false, false, false])
        #expect(
            !sequence.script.contains("mktemp") && !sequence.script.contains("&") && !sequence.script.contains("("),
            "\(sequence.script)")
        let outputs = try sequence.split(try await LocalTransport().run(sequence.script).stdoutText)
        #expect(outputs.map(\.text) == ["one", "", "", "a\n"])
        #expect(ProbeBatch(probes, waiting: [false, true, false, false]).script.contains("mktemp"))
        #expect(ProbeBatch(probes, waiting: [false, false]).script.contains("mktemp"), "unlisted probes may wait")
    }

    @Test("a new tree takes the steps making or writing right inside it, up to the first that does not")
    func newTreeSteps() {
        let directory = { (path: String) in [Action.directory(path, mode: 0o755, owner: "root", group: "root")] }
        let file = { (path: String, account: String) in
            [Action.upload([], to: path, mode: 0o644, owner: nil, group: nil, as: account)]
        }
        let made = ActionBatch([
            directory("/srv/new"), file("/srv/new/a", "root"), directory("/srv/new/sub"),
            file("/srv/new/sub/b", "root"),
            file("/srv/other", "root"), directory("/srv/two"), file("/srv/two/x", "postgres"),
            directory("/srv/three"), directory("/srv/three/a/b"), directory("/srv/four/"), file("/srv/four/c", "root"),
            directory("/srv/five"), [.shell("true")], file("/srv/five/d", "root"),
        ])
        #expect(made.trees == [0: 4])
        let script = String(decoding: made.input, as: UTF8.self)
        #expect(script.contains("mkdir -m 0755 -- /srv/.keel-") && script.contains("mv -T -- /srv/.keel-"), "\(script)")
    }

    @Test("probes run side by side, their outputs still split back in probe order")
    func probesSideBySide() async throws {
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("keel-lane-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mark) }
        // The first probe waits (up to 5 s) for a file the second makes: run one after the other, it never sees it.
        let waits = "for i in $(seq 50); do [ -e \(mark) ] && break; sleep 0.1; done; [ -e \(mark) ] && echo saw it"
        let batch = ProbeBatch([waits, "touch \(mark); echo made it", "", "echo three", "echo four", "echo five"])
        let outputs = try batch.split(try await LocalTransport().run(batch.script).stdoutText)
        #expect(outputs.map(\.text) == ["saw it", "made it", "", "three", "four", "five"])
    }

    @Test(
        "inspected paths are read together: a file with its checksum, a directory, a link never followed, nothing, a name with a newline"
    )
    func pathInspection() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-inspect-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root + "/dir", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: root + "/dir")
        for name in ["file", "odd\nname\\x", "unsummed"] {
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: root + "/" + name))
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: root + "/" + name)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "/dev/zero")
        let owner = try Shell.run("/usr/bin/id", ["-un"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let group = try Shell.run("/usr/bin/id", ["-gn"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let hello = sha256Hex(Array("hello\n".utf8))
        let batch = ProbeBatch(
            ["echo account=root", "true", "true", "true", "echo own", "true"],
            inspecting: [
                PathInspection(root + "/file", checksum: true), PathInspection(root + "/dir", checksum: true),
                PathInspection(root + "/link", checksum: true), PathInspection(root + "/absent", checksum: true),
                PathInspection(root + "/odd\nname\\x", checksum: true),
                PathInspection(root + "/unsummed", checksum: false),
            ])
        let outputs = try batch.split(try await LocalTransport().run(batch.script).stdoutText).map(\.text)
        let attributes = "mode=640\nowner=\(owner)\ngroup=\(group)"
        #expect(outputs[0] == "account=root\nkind=file\n\(attributes)\nsha256=\(hello)")
        #expect(outputs[1] == "kind=directory\nmode=750\nowner=\(owner)\ngroup=\(group)")
        #expect(outputs[2] == "kind=other", "a link to /dev/zero is neither followed nor hashed")
        #expect(outputs[3] == "kind=missing")
        #expect(outputs[4] == "own\nkind=file\n\(attributes)\nsha256=\(hello)")
        #expect(outputs[5] == "kind=file\n\(attributes)")
        #expect(throws: ResourceError.self) { try batch.split("") }
        // `stat` runs only when the shell finds one of the paths: a link to nothing counts.
        try FileManager.default.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: root + "/nowhere")
        let few = ProbeBatch(
            ["true", "true"],
            inspecting: [
                PathInspection(root + "/absent", checksum: true), PathInspection(root + "/dangling", checksum: true),
            ])
        #expect(
            try few.split(try await LocalTransport().run(few.script).stdoutText).map(\.text) == [
                "kind=missing", "kind=other",
            ])
        let none = ProbeBatch(["true"], inspecting: [PathInspection(root + "/absent", checksum: true)])
        #expect(try none.split(try await LocalTransport().run(none.script).stdoutText).map(\.text) == ["kind=missing"])
    }

    @Test("SHA-256 matches sha256sum")
    func sha256() throws {
        #expect(sha256Hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(sha256Hex(Array("hello\n".utf8)) == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03")
        let long = Array(String(repeating: "keel ", count: 1000).utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keel-sha-\(UUID().uuidString)").path
        try Data(long).write(to: URL(fileURLWithPath: path))
        #expect(try Shell.run("/usr/bin/sha256sum", [path]).prefix(64) == sha256Hex(long).prefix(64))
    }

    @Test("unified diff shows removed then added lines with context")
    func unifiedDiff() {
        let old = (1...10).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let new = old.replacingOccurrences(of: "line 5\n", with: "line five\n")
        #expect(
            UnifiedDiff.make(old: old, new: new, path: "/etc/x") == """
                --- /etc/x (on host)
                +++ /etc/x (wanted)
                @@ -2,7 +2,7 @@
                 line 2
                 line 3
                 line 4
                -line 5
                +line five
                 line 6
                 line 7
                 line 8

                """)
        #expect(UnifiedDiff.make(old: old, new: old, path: "/etc/x").isEmpty)
    }

    @Test("facts parse from the probe's key=value lines")
    func facts() {
        let facts = Facts.parse(
            """
            os_id=debian
            os_version=12
            os_like=
            arch=x86_64
            hostname=h1
            cpus=2
            mem_kb=2048000
            default_if=
            addr=lo 127.0.0.1/8
            addr=eth0 10.213.0.11/24
            systemd=1
            pm=apt
            """)
        #expect(facts.osFamily == "debian" && facts.osVersion == "12" && facts.processors == 2)
        #expect(facts.memoryMegabytes == 2000 && facts.hasSystemd && facts.packageManager == "apt")
        #expect(facts.defaultIPv4 == "10.213.0.11")
        #expect(Facts.parse("cpu_list=0-3,6,8-9").processors == 7 && Facts.parse("cpu_list=").processors == 1)
    }

    @Test("the facts of this machine, gathered by the script: what its own tools say")
    func gatheredFacts() async throws {
        let facts = try await Facts.gather(through: LocalTransport())
        let hostname = try await LocalTransport().run("hostname").stdoutText.trimmingCharacters(in: .newlines)
        let route = try await LocalTransport().run("ip -4 route show default | awk '{print $5; exit}'").stdoutText
        #expect(facts.hostname == hostname && !hostname.isEmpty)
        #expect(facts.defaultInterface == route.trimmingCharacters(in: .newlines) || route.isEmpty)
        #expect(facts.interfaces["lo"] == ["127.0.0.1/8"] && facts.memoryMegabytes > 100 && facts.processors >= 1)
        let tools = try await LocalTransport().run("uname -m; nproc").stdoutText.split(separator: "\n")
        #expect(facts.osID == "debian" && [facts.architecture, String(facts.processors)] == tools.map(String.init))
        #expect(facts.hasSystemd == FileManager.default.fileExists(atPath: "/run/systemd/system"))
    }
}

/// systemd's environment.d generator: it parses files with the parser `EnvironmentFile=` uses, and prints the result.
private let environmentGenerator = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"

@Suite(
    "Quoting for systemd environment files",
    .enabled(if: FileManager.default.isExecutableFile(atPath: environmentGenerator), "needs systemd's generator"))
struct EnvironmentFileQuoteTests {
    @Test("systemd's own parser reads each quoted value back unchanged")
    func roundTrip() throws {
        // `$` is left out: environment.d expands variables after parsing, which EnvironmentFile= does not.
        let values = [#"pa\ss"#, #""lead"#, "  spaced  ", "back`tick", "'single'", "plain-Value_1.2", "a b\\"]
        #expect(environmentFileQuote("plain-Value_1.2") == "plain-Value_1.2")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: scratch.appendingPathComponent("environment.d"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let lines = values.enumerated().map { "KEEL_V\($0.offset)=\(environmentFileQuote($0.element))" }
        try (lines.joined(separator: "\n") + "\n").write(
            to: scratch.appendingPathComponent("environment.d/keel.conf"), atomically: true, encoding: .utf8)
        // The generator prints shell assignments; sh reads them back, and prints each value on a line of its own.
        let printing = values.indices.map { "printf '%s\\n' \"$KEEL_V\($0)\"" }.joined(separator: "; ")
        let (status, output) = try Shell.capture(
            "/bin/sh", ["-c", "eval \"$(\(environmentGenerator))\"; \(printing)"],
            environment: ["XDG_CONFIG_HOME": scratch.path, "PATH": "/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        #expect(output == values.map { $0 + "\n" }.joined(), "\(output)")
    }
}

@Suite("Output masked of secrets")
struct SecretMaskTests {
    @Test("every secret masked, a longer one holding a shorter one whole, in any script; other text unchanged")
    func masks() {
        let tag = UUID().uuidString.prefix(8)
        let short = Secret("pw-\(tag)")
        let long = Secret("pw-\(tag)-and-more")
        let accented = Secret("mot-de-passe-é-\(tag)")
        #expect(SecretRegistry.mask("a \(long.reveal()) b \(short.reveal())") == "a *** b ***")
        #expect(SecretRegistry.mask("x\(accented.reveal())y") == "x***y")
        #expect(SecretRegistry.mask("pw-\(tag.dropLast()) é") == "pw-\(tag.dropLast()) é")
    }
}

@Suite("The event log")
struct EventLogTests {
    @Test("a secret holding / \" or \\ is masked in the events file as everywhere else")
    func masksBeforeEscaping() throws {
        let secret = Secret(#"s3/cr"e\t-\#(UUID().uuidString.prefix(8))"#)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keel-events-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = try EventLog(path: path)
        log.report(.unreachable(host: "h1", error: "auth failed for \(secret.reveal())"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""error":"auth failed for ***""#), "\(text)")
        #expect(!text.contains("s3"), "\(text)")
    }
}

@Suite("Secrets in diffs")
struct SecretLinesTests {
    @Test("a diff never prints the value of a line that sets a secret, old or new")
    func redacted() {
        let old = "scope: lab\n  superuser:\n    password: hunter2\nrepo1-cipher-pass=0ld\n    auth_pass 1ce24b6e\n"
        let new = "scope: lab2\n"
        let diff = UnifiedDiff.make(old: SecretLines.redacted(old), new: SecretLines.redacted(new), path: "/etc/x")
        #expect(diff.contains("-scope: lab\n") && diff.contains("+scope: lab2\n"), "\(diff)")
        #expect(diff.contains("-    password: ***\n") && diff.contains("-repo1-cipher-pass= ***\n"), "\(diff)")
        for secret in ["hunter2", "0ld", "1ce24b6e"] { #expect(!diff.contains(secret), "\(diff)") }
    }
}
