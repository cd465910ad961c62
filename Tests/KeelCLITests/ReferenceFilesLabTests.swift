import Foundation
import KeelTestSupport
import Testing

/// postgresql_cluster's users bring their files as they are: autobase 2.5.2's inventory with the lab's hosts filled
/// in (database hosts that also run etcd and the balancers, and the pgBackRest host), its `roles/common.yml`
/// unchanged (every other release's published file passes the model's checks in the unit tests), and one small
/// file of their own choices passed with `-e @`.
struct ReferenceClusterFiles {
    let inventory: String
    /// `-i` and the `-e` files, for every keel command on this cluster.
    let arguments: [String]
    /// The release whose files are deployed.
    static let release = "2.5.2"
    static let name = "postgres-cluster"
    static let databaseHosts = ["10.213.0.11", "10.213.0.12", "10.213.0.13"]

    init() throws {
        let lab = try String(contentsOfFile: Lab.inventory ?? "", encoding: .utf8)
        let connection = lab.split(separator: "\n").filter {
            $0.hasPrefix("ansible_ssh_private_key_file=") || $0.hasPrefix("keel_known_hosts_file=")
        }.map { $0.replacingOccurrences(of: "=", with: ": ") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var hosts = try ReferenceFiles.inventoryWithHosts(Self.release)
        for (example, lab) in [
            ("10.128.64.140", "10.213.0.11"), ("10.128.64.142", "10.213.0.12"), ("10.128.64.143", "10.213.0.13"),
            ("10.128.64.110", "10.213.0.14"),
        ] {
            hosts = hosts.replacingOccurrences(of: example, with: lab)
        }
        // The tags its comments suggest, turned on as a user would: every member in dc1, the balancers routing to it.
        hosts = hosts.replacingOccurrences(of: " # patroni_tags=", with: " patroni_tags=")
            .replacingOccurrences(of: " # balancer_tags=", with: " balancer_tags=")
        // The examples of hosts added later (new_node=true) stay out, as a user leaves them commented.
        hosts = hosts.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("10.128.64.") }
            .joined(separator: "\n")
        inventory = directory.appendingPathComponent("inventory").path
        try hosts.write(toFile: inventory, atomically: true, encoding: .utf8)
        let override = directory.appendingPathComponent("lab.yml").path
        try
            (["ansible_user: root"] + connection + [
                "postgresql_version: 15", "with_haproxy_load_balancing: true", #"cluster_vip: "10.213.0.100""#,
                "pgbackrest_install: true", #"pgbackrest_repo_host: "10.213.0.14""#,
            ]).joined(separator: "\n").appending("\n").write(toFile: override, atomically: true, encoding: .utf8)
        let common = ReferenceFiles.directory.appendingPathComponent("\(Self.release)/roles/common.yml").path
        arguments = ["-i", inventory, "-e", "@" + common, "-e", "@" + override]
    }

    /// `keel COMMAND` on this cluster, with `extra` arguments.
    func keel(_ command: String, _ extra: [String] = []) -> [String] { [command] + arguments + extra }
}

extension LabTests {
    /// Deploys the reference's files and shows the cluster works: three members with a leader, a row written on
    /// the leader on every replica, the VIP's HAProxy answering, each server named by its line's `hostname`, each
    /// member with its line's Patroni tags and the balancers' tagged replica checks routing to them, shared_buffers a
    /// quarter of the host's memory (the reference's Jinja, from the gathered facts), `keel status` healthy; the
    /// second run changes nothing.
    func deployReferenceFiles() async throws -> ReferenceClusterFiles {
        let files = try ReferenceClusterFiles()
        func remote(_ host: String, _ command: String) async throws -> [String] {
            try await self.remote(arguments: files.arguments, host, command)
        }
        let started = ContinuousClock.now
        let first = try await KeelBinary.run(files.keel("deploy"))
        print("the reference's files deployed in \(ContinuousClock.now - started)")
        #expect(first.status == 0, "\(first)")
        try #require(first.status == 0)
        let status = try await KeelBinary.run(files.keel("status"))
        #expect(status.status == 0 && status.output.contains("healthy"), "\(status)")
        let json =
            try JSONSerialization.jsonObject(
                with: Data(try await KeelBinary.run(files.keel("status", ["--json"])).output.utf8)) as? [String: Any]
        let members = json?["members"] as? [[String: Any]] ?? []
        #expect(members.count == 3, "\(members)")
        let leader = try #require(members.first { $0["role"] as? String == "leader" }?["name"] as? String)
        let sql = "cd / && runuser -u postgres -- psql -XAtq -d postgres -c"
        _ = try await remote(
            leader, "\(sql) 'CREATE TABLE reference_files (id int); INSERT INTO reference_files VALUES (1)'")
        for host in ReferenceClusterFiles.databaseHosts where host != leader {
            var rows: [String] = []
            for _ in 0..<20 {
                rows = try await remote(host, "\(sql) 'SELECT count(*) FROM reference_files'")
                if rows == ["1"] { break }
                try await Task.sleep(for: .seconds(1))
            }
            #expect(rows == ["1"], "the row replicated to \(host): \(rows)")
        }
        let answering = try await remote("10.213.0.12", "pg_isready -h 10.213.0.100 -p 5000; true")
        #expect(answering.first?.contains("accepting connections") == true, "\(answering)")
        // Its host lines' flags: each server renamed, each member tagged, the balancers' replica port routing to them.
        for (index, host) in ReferenceClusterFiles.databaseHosts.enumerated() {
            let flags = try await remote(
                host,
                "hostname; \(LabTests.patroniCurl) -sf -m 5 https://\(host):8008/patroni "
                    + "|| curl -sf -m 5 http://\(host):8008/patroni")
            #expect(flags.first == "pgnode0\(index + 1)", "\(host): \(flags)")
            let patroni = try? JSONSerialization.jsonObject(with: Data((flags.last ?? "").utf8)) as? [String: Any]
            let tags = patroni?["tags"] as? [String: Any]
            #expect(tags?["datacenter"] as? String == "dc1", "\(host): \(flags)")
        }
        var replicas: [String] = []
        for _ in 0..<20 {
            replicas = try await remote("10.213.0.12", "pg_isready -h 10.213.0.100 -p 5001; true")
            if replicas.first?.contains("accepting connections") == true { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(replicas.first?.contains("accepting connections") == true, "replicas tagged dc1 routed: \(replicas)")
        let memory = try await remote(leader, "awk '/^MemTotal:/ {print int($2 / 1024 / 4)}' /proc/meminfo")
        let shared = try await remote(
            leader, "\(sql) \"SELECT setting::bigint * 8 / 1024 FROM pg_settings WHERE name = 'shared_buffers'\"")
        #expect(shared == memory, "shared_buffers \(shared) MB for \(memory) MB")

        let events = files.inventory + ".events"
        let again = try await KeelBinary.run(files.keel("deploy", ["--events", events]))
        let changed = try EventStream(path: events).changedPerHost
        #expect(again.status == 0 && changed.values.allSatisfy { $0 == 0 }, "\(changed): \(again)")
        return files
    }
}
