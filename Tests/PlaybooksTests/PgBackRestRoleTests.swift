import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("pgBackRest's SSH keys and first backup")
struct PgBackRestRoleTests {
    @Test("the first full backup runs as a transient unit the deploy waits for, up to keel_data_copy_timeout")
    func firstBackupDetached() throws {
        let (model, _) = try ClusterModelTests().load(
            hosts: ClusterModelTests.hostsWithRepository,
            vars: ClusterModelTests.vars + "\npgbackrest_install: true\nkeel_data_copy_timeout: 90000\n")
        #expect(model.dataCopyTimeout == .seconds(90_000))
        let steps = PgBackRestFirstBackup(try #require(model.backups), onlyIf: nil, timeout: model.dataCopyTimeout)
            .steps
        let commands = steps.compactMap { $0.resource as? Command }
        #expect(commands.count == 3 && commands[1].command.contains("systemd-run --quiet --unit=keel-first-backup "))
        #expect(commands[1].unless?.hasSuffix("|| systemctl is-active -q keel-first-backup") == true)
        #expect(commands[2].timeout == .seconds(90_000) && commands[2].command.hasPrefix("while systemctl is-active"))
    }

    @Test("stanza-create waits while another pgBackRest process holds the lock (exit 50); other failures stop it")
    func waitsForTheLock() throws {
        let counter = FileManager.default.temporaryDirectory.appendingPathComponent("keel-lock-\(UUID().uuidString)")
            .path
        // Fails with `status` until it has run `failures` times, then succeeds.
        func attempts(status: Int, failures: Int) throws -> (status: Int32, runs: Int) {
            try "".write(toFile: counter, atomically: true, encoding: .utf8)
            let command = "echo run >> \(counter); [ $(wc -l < \(counter)) -gt \(failures) ] || exit \(status)"
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", PgBackRestFirstBackup.waitingForLock("sh -c '\(command)'")]
            try shell.run()
            shell.waitUntilExit()
            let runs = try String(contentsOfFile: counter, encoding: .utf8).split(separator: "\n").count
            return (shell.terminationStatus, runs)
        }
        #expect(try attempts(status: 50, failures: 2) == (0, 3), "the lock held twice, then free")
        #expect(try attempts(status: 1, failures: 2) == (1, 1), "another failure is not retried")
    }

    @Test("the key a host accepts works from its peers' addresses only, and runs one plain pgbackrest command")
    func forcedCommand() throws {
        let (model, directory) = try ClusterModelTests().load(
            hosts: ClusterModelTests.hostsWithRepository,
            vars: ClusterModelTests.vars + "\npgbackrest_install: true\n")
        var facts = Facts()
        facts.sshHostKeys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMoPU2KBpsQJr1v0OfUgC1d7YtEgLAJSHNxTzL3VtMUn"]
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let host = HostContext(
            name: "10.213.0.16", inventory: inventory, facts: facts,
            peers: Dictionary(uniqueKeysWithValues: model.databaseHosts.map { ($0, facts) }))
        let backups = try #require(model.backups)
        guard case .host(_, let databaseKey, let repositoryKey) = backups.repository else {
            Issue.record("a repository host")
            return
        }
        let trust = SSHTrust(
            user: "pgbackrest", home: "/home/pgbackrest", key: repositoryKey, accepting: databaseKey,
            from: model.databaseHosts, host: host, model: model)
        #expect(
            trust.authorizedKey
                == "from=\"10.213.0.11,10.213.0.12,10.213.0.13\",restrict,command=\"/usr/local/lib/keel/pgbackrest-ssh\" "
                + databaseKey.publicKey + "\n")

        // The forced command itself, with a stand-in pgbackrest that says what it was given.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("templates/cluster/pgbackrest/ssh-command").path
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try Shell.writeExecutable(bin + "/pgbackrest", "#!/bin/sh\necho \"ran $*\"\n")
        let marker = directory + "/marker"
        for (command, ran) in [
            ("pgbackrest --stanza=lab --remote-type=repo archive-push:remote", true),
            ("pgbackrest --stanza=lab info; touch \(marker)", false), ("pgbackrest $(touch \(marker))", false),
            ("pgbackrest info\ntouch \(marker)", false), ("touch \(marker)", false),
        ] {
            let (status, output) = try Shell.capture(
                "/bin/sh", [script],
                environment: ["SSH_ORIGINAL_COMMAND": command, "PATH": bin + ":/usr/bin:/bin"])
            #expect((status == 0 && output.hasPrefix("ran --stanza=lab")) == ran, "\(command): \(status) \(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
