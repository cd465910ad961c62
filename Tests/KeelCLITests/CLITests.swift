import Foundation
import KeelTestSupport
import Testing

@Suite(
    "The keel binary end to end, against a real sshd",
    .enabled(if: FileManager.default.fileExists(atPath: KeelBinary.path), "build keel first: swift build"))
struct CLITests {
    /// An inventory with the test server twice under two names, plus a host where nothing listens.
    private func inventory(for server: TestSSHServer, deadPort: Int) throws -> String {
        let path = server.freshPath("hosts.ini")
        try """
        [db]
        alpha ansible_host=127.0.0.1 ansible_port=\(server.port)
        beta ansible_host=127.0.0.1 ansible_port=\(server.port)

        [gone]
        ghost ansible_host=127.0.0.1 ansible_port=\(deadPort)

        [all:vars]
        ansible_user=\(server.user)
        ansible_ssh_private_key_file=\(server.keys.clientEd25519)
        keel_known_hosts_file=\(try server.knownHosts())
        patroni_superuser_password=hunter2
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("--version prints the version")
    func version() async throws {
        let run = try await KeelBinary.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    @Test("keel ping reports each host: ok with latency, or why it is unreachable")
    func ping() async throws {
        try await TestSSHServer.with { server in
            let inventory = try inventory(for: server, deadPort: try FreePort.find())
            let ok = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "db"])
            #expect(ok.status == 0, "\(ok)")
            #expect(ok.output.contains("alpha | ok | connect "))
            #expect(ok.output.contains("beta | ok | connect "))
            #expect(ok.output.contains("2 of 2 hosts answered"))

            let all = try await KeelBinary.run(["ping", "-i", inventory])
            #expect(all.status == 1)
            #expect(all.output.contains("ghost | UNREACHABLE | [127.0.0.1]:"))
            #expect(all.output.contains("Connection refused"))
            #expect(all.output.contains("2 of 3 hosts answered"))
        }
    }

    @Test("keel exec shows each host's output and status, and fails when any host fails")
    func exec() async throws {
        try await TestSSHServer.with { server in
            let inventory = try inventory(for: server, deadPort: try FreePort.find())
            let ok = try await KeelBinary.run([
                "exec", "-i", inventory, "--limit", "db", "--", "echo", "hello;", "echo", "warn", ">&2",
            ])
            #expect(ok.status == 0, "\(ok)")
            #expect(ok.output.contains("alpha | ok | exit 0\nhello\nstderr: warn\n"))
            #expect(ok.output.contains("beta | ok | exit 0\nhello\nstderr: warn\n"))

            let failing = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "alpha", "--", "exit 4"])
            #expect(failing.status == 1)
            #expect(failing.output.contains("alpha | FAILED | exit 4"))
        }
    }

    @Test("a host key not in known_hosts is refused unless --accept-new-host-keys")
    func hostKeys() async throws {
        try await TestSSHServer.with { server in
            let inventory = try inventory(for: server, deadPort: try FreePort.find())
            let knownHosts = server.freshPath("empty_known_hosts")
            let refused = try await KeelBinary.run([
                "ping", "-i", inventory, "--limit", "alpha", "--known-hosts", knownHosts,
            ])
            #expect(refused.status == 1)
            #expect(refused.output.contains("is not in \(knownHosts)"))
            let accepted = try await KeelBinary.run([
                "ping", "-i", inventory, "--limit", "alpha", "--known-hosts", knownHosts, "--accept-new-host-keys",
            ])
            #expect(accepted.status == 0, "\(accepted)")
            let strictAgain = try await KeelBinary.run([
                "ping", "-i", inventory, "--limit", "alpha", "--known-hosts", knownHosts,
            ])
            #expect(strictAgain.status == 0)
        }
    }

    @Test("every command refuses a host whose key differs from the file given with --known-hosts")
    func knownHostsWins() async throws {
        try await TestSSHServer.with { server in
            // A cluster of three hosts, each the test server, whose inventory trusts the server's real key.
            let inventory = server.freshPath("cluster.ini")
            try """
            [etcd_cluster]
            alpha ansible_host=127.0.0.1 ansible_port=\(server.port)
            beta ansible_host=127.0.0.1 ansible_port=\(server.port)
            gamma ansible_host=127.0.0.1 ansible_port=\(server.port)
            [master]
            alpha
            [replica]
            beta
            gamma
            [postgres_cluster:children]
            master
            replica

            [all:vars]
            ansible_user=\(server.user)
            ansible_ssh_private_key_file=\(server.keys.clientEd25519)
            keel_known_hosts_file=\(try server.knownHosts())
            patroni_wheel_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """.write(toFile: inventory, atomically: true, encoding: .utf8)
            let impostor = server.freshPath("impostor_known_hosts")
            let strangerKey = try server.publicKey(server.keys.clientStranger)
            try "[127.0.0.1]:\(server.port) \(strangerKey)\n".write(toFile: impostor, atomically: true, encoding: .utf8)
            // deploy reads the Patroni wheel before it connects; an empty placeholder (its SHA-256 given above) keeps
            // it from reaching PyPI.
            let wheels = server.freshPath("wheels")
            try FileManager.default.createDirectory(atPath: wheels, withIntermediateDirectories: true)
            #expect(
                FileManager.default.createFile(atPath: wheels + "/patroni-4.1.5-py3-none-any.whl", contents: Data()))
            let trusted = try await KeelBinary.run(["ping", "-i", inventory])
            #expect(trusted.status == 0, "the inventory's own known_hosts holds the right key: \(trusted)")
            for command in [["ping"], ["exec"], ["apply", "bench-files"], ["deploy", "--check"], ["status"]] {
                let arguments =
                    [command[0], "-i", inventory, "--known-hosts", impostor] + command.dropFirst()
                    + (command[0] == "exec" ? ["--", "true"] : [])
                let refused = try await KeelBinary.run(arguments, environment: ["KEEL_WHEELS": wheels])
                #expect(refused.status != 0, "keel \(command[0]): \(refused)")
                #expect(refused.output.contains("HOST KEY CHANGED"), "keel \(command[0]): \(refused)")
            }
        }
    }

    @Test("keel inventory --json resolves variables and masks secrets")
    func inventoryJSON() async throws {
        try await TestSSHServer.with { server in
            let inventory = try inventory(for: server, deadPort: 1)
            let run = try await KeelBinary.run(["inventory", "-i", inventory, "--json"])
            #expect(run.status == 0)
            let json = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let hosts = json?["hosts"] as? [String: Any]
            let alpha = (hosts?["alpha"] as? [String: Any])?["vars"] as? [String: Any]
            #expect(alpha?["ansible_port"] as? Int == server.port)
            #expect(alpha?["patroni_superuser_password"] as? String == "***")
            #expect(!run.output.contains("hunter2"))
            #expect((json?["groups"] as? [String: Any])?["db"] as? [String] == ["alpha", "beta"])
        }
    }

    @Test("a bad inventory fails before any host is touched, naming file and line")
    func badInventory() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bad-\(UUID().uuidString).ini")
            .path
        try "[db]\npg1\n[cluster:children]\ndb\nreplcia\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await KeelBinary.run(["ping", "-i", path])
        #expect(run.status != 0)
        #expect(
            run.output.contains(
                "\(path):5: error: group 'replcia' is listed as a child of 'cluster' but is not defined"))
    }

    @Test(
        "bad flag values are refused by name before any host is contacted",
        arguments: [
            (["ping", "--limit", ""], "--limit is empty (an unset shell variable?)"),
            (["apply", "bench-files", "--tags", ""], "--tags names no tag"),
            (["ping", "--forks", "0"], "--forks must be from 1 to 256, not 0"),
            (["exec", "--connect-timeout", "0", "--", "true"], "--connect-timeout must be from 1 to 600 seconds"),
            (["status", "--limit", "pg1"], "keel status reports the whole cluster; --limit does not apply to it"),
            (
                ["apply", "bench-files", "--retry-file", "/nonexistent-keel/retry"],
                "--retry-file /nonexistent-keel/retry"
            ),
        ])
    func badFlags(arguments: [String], message: String) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keel-flags-\(UUID().uuidString).ini")
            .path
        // A host nothing listens for: trying it would end in a connection error, not in `message`.
        try "[db]\npg1 ansible_host=10.213.0.250\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await KeelBinary.run([arguments[0], "-i", path] + arguments.dropFirst())
        #expect(run.status != 0 && run.output.contains(message) && !run.output.contains("10.213.0.250"), "\(run)")
    }
}
