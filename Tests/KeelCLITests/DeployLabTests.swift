import Foundation
import KeelTestSupport
import Testing

/// A postgresql_cluster-style inventory for h1..h3 of the lab, in a fresh folder.
struct LabClusterInventory {
    let path: String

    init() throws {
        let lab = try String(contentsOfFile: Lab.inventory ?? "", encoding: .utf8)
        let settings = lab.split(separator: "\n").filter { $0.hasPrefix("ansible_ssh_private_key_file=") || $0.hasPrefix("keel_known_hosts_file=") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("group_vars"), withIntermediateDirectories: true)
        try """
            [etcd_cluster]
            h1 ansible_host=10.213.0.11
            h2 ansible_host=10.213.0.12
            h3 ansible_host=10.213.0.13

            [master]
            h1 ansible_host=10.213.0.11

            [replica]
            h2 ansible_host=10.213.0.12
            h3 ansible_host=10.213.0.13

            [postgres_cluster:children]
            master
            replica

            [all:vars]
            ansible_user=root
            \(settings.joined(separator: "\n"))
            """.write(to: directory.appendingPathComponent("hosts.ini"), atomically: true, encoding: .utf8)
        try """
            patroni_cluster_name: "lab"
            postgresql_parameters:
              - { option: "work_mem", value: "8MB" }
            postgresql_users:
              - { name: "app", password: "", flags: "" }
            postgresql_databases:
              - { db: "app", owner: "app" }
            postgresql_extensions:
              - { ext: "pg_stat_statements", db: "app" }
            """.write(to: directory.appendingPathComponent("group_vars/all.yml"), atomically: true, encoding: .utf8)
        path = directory.appendingPathComponent("hosts.ini").path
    }
}

/// The deploy flow on fresh lab hosts: etcd + Patroni + PostgreSQL on h1..h3. Part of the lab suite, which runs
/// one test at a time because tests share the hosts.
extension LabTests {
    private func sql(_ inventory: String, _ host: String, _ query: String, database: String = "postgres") async throws -> (status: Int32, output: String) {
        try await KeelBinary.run(["exec", "-i", inventory, "--limit", host, "--", "runuser -u postgres -- psql -XAtq -d \(database) -c \"\(query)\""])
    }

    @Test("deploy on fresh hosts: one leader, two streaming replicas, data replicated; the second deploy changes nothing")
    func deploy() async throws {
        let inventory = try LabClusterInventory().path
        try await Lab.run("reset")
        let events = inventory + ".events"
        let first = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(first.status == 0, "\(first.output)")
        let secrets = try FileManager.default.attributesOfItem(atPath: (inventory as NSString).deletingLastPathComponent + "/.keel-secrets.yml")
        #expect((secrets[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let status = try await KeelBinary.run(["status", "-i", inventory, "--json"])
        #expect(status.status == 0, "\(status.output)")
        let json = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let members = json?["members"] as? [[String: Any]] ?? []
        #expect(members.filter { $0["role"] as? String == "leader" }.map { $0["name"] as? String } == ["h1"])
        let replicas = members.filter { ["replica", "sync_standby"].contains($0["role"] as? String) && $0["state"] as? String == "streaming" }
        #expect(replicas.count == 2, "\(status.output)")
        #expect(members.contains { $0["role"] as? String == "sync_standby" }, "synchronous_mode is on by default")
        #expect((json?["etcd"] as? [[String: Any]])?.filter { $0["health"] as? Bool == true }.count == 3)

        let streaming = try await sql(inventory, "h1", "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
        #expect(streaming.output.contains("h1 | ok | exit 0\n2\n"), "\(streaming.output)")
        _ = try await sql(inventory, "h1", "CREATE TABLE keel_probe AS SELECT generate_series(1, 1000) AS n", database: "app")
        for replica in ["h2", "h3"] {
            var count = try await sql(inventory, replica, "SELECT count(*) FROM keel_probe", database: "app")
            for _ in 0..<20 where !count.output.contains("\n1000\n") {
                try await Task.sleep(for: .milliseconds(500))
                count = try await sql(inventory, replica, "SELECT count(*) FROM keel_probe", database: "app")
            }
            #expect(count.output.contains("\(replica) | ok | exit 0\n1000\n"), "\(count.output)")
        }
        let extensionPresent = try await sql(inventory, "h2", "SELECT extname FROM pg_extension WHERE extname = 'pg_stat_statements'", database: "app")
        #expect(extensionPresent.output.contains("pg_stat_statements"))

        let second = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(second.status == 0, "\(second.output)")
        let noop = try EventStream(path: events)
        #expect(noop.changedPerHost == ["h1": 0, "h2": 0, "h3": 0], "\(second.output)")
        #expect(noop.handlers.isEmpty)
    }
}
