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
        #expect(model.limits.dataCopyTimeout == .seconds(90_000))
        let steps = PgBackRestFirstBackup(
            try #require(model.backups), onlyIf: nil, timeout: model.limits.dataCopyTimeout
        )
        .steps
        let commands = steps.compactMap { $0.resource as? Command }
        #expect(
            commands.count == 3 && commands[1].command.text.contains("systemd-run --quiet --unit=keel-first-backup "))
        #expect(commands[1].unless?.text.hasSuffix("|| systemctl is-active -q keel-first-backup") == true)
        #expect(
            commands[2].timeout == .seconds(90_000) && commands[2].command.text.hasPrefix("while systemctl is-active"))
    }

    @Test(
        "the timers back up only on the primary: systemd runs the condition itself, so it names the API client's certificate outright, no shell in it"
    )
    func timersAskPatroniWithoutAShell() throws {
        let (model, directory) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\npgbackrest_install: true\n")
        let host = try ClusterModelTests.host("10.213.0.11", directory)
        let timers = PgBackRestTimers(
            backups: try #require(model.backups), onlyIf: PatroniAPI(model, member: "10.213.0.11").isPrimaryCondition)
        let unit = try ClusterModelTests.rendered(
            timers.steps, PgBackRestTimers.service(try #require(model.backups)), on: host)
        let condition = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecCondition=") })
        #expect(
            condition == "ExecCondition=/usr/bin/curl -sf -o /dev/null -m 5 --cacert /etc/patroni/tls/ca.crt "
                + "--cert /etc/patroni/tls/api/client.crt --key /etc/patroni/tls/api/client.key "
                + "https://10.213.0.11:8008/primary", "\(unit)")
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
            shell.arguments = ["-c", PgBackRestFirstBackup.waitingForLock("sh -c \(command)").text]
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
            try trust.authorizedKey
                == "from=\"10.213.0.11,10.213.0.12,10.213.0.13\",restrict,command=\"/usr/local/lib/keel/pgbackrest-ssh\" "
                + databaseKey.publicKey + "\n")

        // A peer reached by a DNS name is named by its IP address (sshd matches from= against addresses only).
        var named = model
        named.addresses["10.213.0.12"] = "pg2.lab.example"
        var peers = host.peers
        peers["10.213.0.12"]?.defaultIPv4 = "10.213.0.42"
        let byName = SSHTrust(
            user: "pgbackrest", home: "/home/pgbackrest", key: repositoryKey, accepting: databaseKey,
            from: named.databaseHosts,
            host: HostContext(name: "10.213.0.16", inventory: inventory, facts: facts, peers: peers), model: named)
        #expect(try byName.authorizedKey.hasPrefix("from=\"10.213.0.11,10.213.0.42,10.213.0.13\""))

        // The forced command itself, rendered with a stand-in pgbackrest that says what it was given.
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try Shell.writeExecutable(bin + "/pgbackrest", "#!/bin/sh\necho \"ran $*\"\n")
        let script = directory + "/pgbackrest-ssh"
        try Shell.writeExecutable(
            script,
            try TemplateLibrary.locate().render(
                "cluster/pgbackrest/ssh-command", context: ["pgbackrest": bin + "/pgbackrest", "stanza": "lab"]))
        let marker = directory + "/marker"
        for (command, ran) in [
            ("pgbackrest --stanza=lab --remote-type=repo archive-push:remote", true),
            ("\(bin)/pgbackrest --stanza=lab --exec-id=1-x --process=0 backup:remote", true),
            ("pgbackrest --stanza=lab info; touch \(marker)", false), ("pgbackrest $(touch \(marker))", false),
            ("pgbackrest info\ntouch \(marker)", false), ("touch \(marker)", false),
            // Any pgbackrest command but its remote side: a database host's key must not manage the repository.
            ("pgbackrest --stanza=lab stop", false), ("pgbackrest --stanza=lab --force stanza-delete", false),
            ("pgbackrest --stanza=lab stanza-delete:remote extra", false), ("pgbackrest --stanza=lab info", false),
            ("pgbackrest --stanza=lab ../x:remote", false), ("pgbackrest --stanza=* backup:remote", false),
            ("/tmp/pgbackrest --stanza=lab backup:remote", false),
            // Only this cluster's stanza, in this host's own repository and configuration.
            ("pgbackrest --stanza=other backup:remote", false), ("pgbackrest --process=0 backup:remote", false),
            ("pgbackrest --stanza=lab --stanza=other backup:remote", false),
            ("pgbackrest --stanza=lab --repo1-path=/var/lib/other backup:remote", false),
            ("pgbackrest --stanza=lab --config=/tmp/x.conf backup:remote", false),
            ("pgbackrest --stanza=lab --config-include-path=/tmp backup:remote", false),
            ("pgbackrest --stanza=lab --cmd-ssh=/tmp/x backup:remote", false),
            ("pgbackrest --stanza=lab --lock-path=/tmp backup:remote", false),
        ] {
            let (status, output) = try Shell.capture(
                "/bin/sh", [script], environment: ["SSH_ORIGINAL_COMMAND": command, "PATH": "/usr/bin:/bin"])
            #expect((status == 0 && output.hasPrefix("ran --stanza=lab")) == ran, "\(command): \(status) \(output)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
