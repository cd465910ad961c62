import Foundation
import KeelTestSupport
import Testing

/// What the destructive flows refuse from the command line and the inventory alone, before any host is
/// contacted: every host of the inventory is a closed port, so a run that reached for one would say so.
@Suite(
    "destructive flows refuse what they can before touching the network",
    .enabled(if: FileManager.default.fileExists(atPath: KeelBinary.path), "build keel first: swift build"))
struct FlowGuardTests {
    /// A cluster of three members and etcd on them, every host a closed port on loopback; with a secrets file
    /// unless `secrets` is false.
    private func inventory(secrets: Bool = true) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-guard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try FreePort.find()
        let hosts = (1...3).map { "h\($0) ansible_host=127.0.0.\(10 + $0) ansible_port=\(port)" }
        try """
        [etcd_cluster]
        \(hosts.joined(separator: "\n"))

        [master]
        h1

        [replica]
        h2
        h3

        [postgres_cluster:children]
        master
        replica

        [all:vars]
        ansible_user=root
        patroni_cluster_name=pg-lab
        tls_cert_generate=false
        """.write(to: directory.appendingPathComponent("hosts.ini"), atomically: true, encoding: .utf8)
        if secrets {
            // What a deploy keeps: every secret a flow may render.
            let names = [
                "patroni_superuser_password", "patroni_replication_password", "patroni_restapi_password",
                "vrrp_auth_pass",
            ]
            try names.map { "\($0): x\($0.count)Secret\n" }.joined().write(
                to: directory.appendingPathComponent(".keel-secrets.yml"), atomically: true, encoding: .utf8)
        }
        return directory.appendingPathComponent("hosts.ini").path
    }

    /// Runs keel with `arguments` on `inventory`; expects it refused with `message`, no host contacted.
    private func refused(_ arguments: [String], _ message: String, inventory: String? = nil) async throws {
        let path = try inventory ?? self.inventory()
        let run = try await KeelBinary.run(
            [arguments[0], "-i", path] + arguments.dropFirst())
        #expect(run.status != 0, "\(arguments): \(run)")
        #expect(run.output.contains(message), "\(arguments): \(run)")
        for contact in ["Connection refused", "could not be read", "no member answered", "PLAY "] {
            #expect(!run.output.contains(contact), "\(arguments) reached for a host: \(run)")
        }
        #expect(!run.output.contains("Fatal error"), "\(arguments) crashed: \(run)")
    }

    @Test("a confirmation naming another cluster, or none where none can be asked, stops at once")
    func confirmations() async throws {
        try await refused(
            ["restore", "--latest", "--confirm", "other"], "--confirm other does not name the cluster (pg-lab)")
        try await refused(
            ["restore", "--latest"], "restore needs a confirmation: run it on a terminal, or add --confirm pg-lab")
        try await refused(
            ["remove-cluster", "--confirm", "other"], "--confirm other does not name the cluster (pg-lab)")
        try await refused(["remove-cluster"], "remove-cluster needs a confirmation")
        try await refused(
            ["remove-cluster", "--confirm", "pg-lab", "--confirm-backups", "pg-lab"],
            "--confirm-backups confirms --delete-backups")
        try await refused(["remove-node", "h3"], "remove-node needs a confirmation")
        try await refused(["remove-node", "h3", "--yes", "h2"], "--yes names h2, not the hosts to remove (h3)")
    }

    @Test("a moment that does not exist or has not come is refused without a crash")
    func targetTimes() async throws {
        let confirm = ["--confirm", "pg-lab"]
        for zone in ["+99", "+19", "-18:01", "+14:60"] {
            try await refused(
                ["restore", "--target-time", "2026-01-01 00:00:00\(zone)"] + confirm, "which does not exist")
        }
        try await refused(["restore", "--target-time", "9999-01-01 00:00:00+00"] + confirm, "is in the future")
    }

    @Test(
        "day-2 flows work on the whole cluster: --limit, --tags and --skip-tags are refused; deploy's unknown tags too")
    func selection() async throws {
        try await refused(["remove-node", "h3", "--yes", "h3", "--limit", "h3"], "--limit is refused")
        try await refused(["restore", "--latest", "--confirm", "pg-lab", "--limit", "h1"], "--limit is refused")
        try await refused(["add-node", "h3", "--tags", "patroni"], "--tags is refused")
        try await refused(["remove-cluster", "--confirm", "pg-lab", "--skip-tags", "etcd"], "--skip-tags is refused")
        try await refused(["deploy", "--tags", "nosuchtag"], "--tags names nosuchtag, which no play of")
    }

    @Test(
        "a flow that may not make secrets refuses to run without the cluster's secrets file, or with one lacking some")
    func secrets() async throws {
        let bare = try inventory(secrets: false)
        try await refused(
            ["remove-node", "h3", "--yes", "h3"], "remove-node needs the cluster's secrets", inventory: bare)
        try await refused(
            ["restore", "--latest", "--confirm", "pg-lab"], "restore needs the cluster's secrets", inventory: bare)
        try await refused(
            ["remove-balancer", "h3", "--yes", "h3"], "does not exist: nothing was changed", inventory: bare)
        #expect(
            !FileManager.default.fileExists(atPath: (bare as NSString).deletingLastPathComponent + "/.keel-secrets.yml")
        )
        let partial = try inventory()
        let secretsPath = (partial as NSString).deletingLastPathComponent + "/.keel-secrets.yml"
        let kept = try String(contentsOfFile: secretsPath, encoding: .utf8)
        try kept.replacingOccurrences(of: "vrrp_auth_pass", with: "unrelated").write(
            toFile: secretsPath, atomically: true, encoding: .utf8)
        try await refused(["remove-node", "h3", "--yes", "h3"], "lacks vrrp_auth_pass", inventory: partial)
    }

    @Test("another tool's variables: a warning naming them, an error with --strict; a misspelt one: did you mean")
    func unknownVariables() async throws {
        let path = try inventory()
        let others =
            ["node_exporter_version=1.8.2", "my_app_port=8080"] + (1...8).map { "other_role_knob_\($0)=\($0)" }
        try (String(contentsOfFile: path, encoding: .utf8) + "\n" + others.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        try await refused(
            ["deploy", "--check", "--strict"], "10 variable(s) Keel does not use, ignored", inventory: path)
        // Without --strict the run goes on past the names, to the hosts (closed ports here).
        let run = try await KeelBinary.run(["deploy", "-i", path, "--check"])
        #expect(run.status != 0 && run.output.contains("warning: 10 variable(s) Keel does not use"), "\(run)")
        #expect(
            run.output.contains("line 21: node_exporter_version") && run.output.contains("line 22: my_app_port"),
            "\(run)")
        #expect(run.output.components(separatedBy: "Keel does not use").count == 2, "one warning: \(run)")
        let typo = try inventory()
        try (String(contentsOfFile: typo, encoding: .utf8) + "\npostgresql_verison=16\n").write(
            toFile: typo, atomically: true, encoding: .utf8)
        try await refused(["deploy", "--check"], "did you mean 'postgresql_version'?", inventory: typo)
    }
}

extension FlowGuardTests {
    @Test("ssh options Keel has no equivalent for: named once with their hosts and file:line, an error with --strict")
    func ignoredSSHOptions() async throws {
        let path = try inventory()
        try
            (String(contentsOfFile: path, encoding: .utf8)
            + "\nansible_ssh_common_args='-o ControlMaster=auto -o StrictHostKeyChecking=no'\n").write(
                toFile: path, atomically: true, encoding: .utf8)
        try await refused(
            ["deploy", "--check", "--strict"], "Keel has no equivalent for these ssh options", inventory: path)
        let run = try await KeelBinary.run(["deploy", "-i", path, "--check"])
        #expect(
            run.output.contains("warning: Keel has no equivalent for these ssh options")
                && run.output.contains("-o ControlMaster=auto (ansible_ssh_common_args, \(path):21): h1, h2, h3")
                && run.output.contains("-o StrictHostKeyChecking=no (host keys are always checked"),
            "\(run)")
        #expect(run.output.components(separatedBy: "no equivalent for these").count == 2, "one warning: \(run)")
    }

    @Test(
        "each release's inventory and published variables file as a user has them, with the cluster's name, release, VIP and balancers set: every variable classified, none refused, the model's checks passed",
        arguments: ReferenceFiles.allReleases)
    func referenceRelease(_ release: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-reference-\(release)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The example hosts filled in on loopback, each a closed port: reaching for one is the sign the model passed.
        let hosts = try ReferenceFiles.inventoryWithHosts(release).replacingOccurrences(
            of: "10.128.64.", with: "127.0.0.")
        let inventory = directory.appendingPathComponent("inventory").path
        try hosts.write(toFile: inventory, atomically: true, encoding: .utf8)
        let local = directory.appendingPathComponent("local.yml").path
        try """
        ansible_user: root
        ansible_port: \(try FreePort.find())
        patroni_cluster_name: "lab"
        postgresql_version: 15
        cluster_vip: "127.0.0.100"
        with_haproxy_load_balancing: true

        """.write(toFile: local, atomically: true, encoding: .utf8)
        let published = ReferenceFiles.directory.appendingPathComponent(
            "\(release)/\(ReferenceFiles.releases.contains(release) ? "vars/main.yml" : "roles/common.yml")"
        ).path
        let arguments = ["-i", inventory, "-e", "@" + published, "-e", "@" + local]

        let explained = try await KeelBinary.run(["inventory"] + arguments + ["--explain"])
        #expect(explained.status == 0, "\(explained)")
        for unclassified in ["ignored: ", "UNKNOWN", "REFUSED"] {
            let lines = explained.output.split(separator: "\n").filter { $0.contains(unclassified) }
            #expect(lines.isEmpty, "\(release): \(lines.joined(separator: "\n"))")
        }
        let deploy = try await KeelBinary.run(["deploy", "--check", "--strict"] + arguments)
        #expect(
            deploy.status != 0 && deploy.output.contains("could not be read")
                && deploy.output.contains("Connection refused"), "\(release): \(deploy)")
    }
}
