import Foundation
import KeelTestSupport
import Testing

/// The example lab inventory (`inventory/lab`) copied to a fresh folder, with the running lab's key and
/// known_hosts: three database hosts running etcd too, two balancers with HAProxy, keepalived and the VIP, the
/// first of them also the pgBackRest repository. Patroni's loop runs every 5 s, for the suite's time.
struct LabClusterInventory {
    let path: String
    let directory: String

    /// With `databaseHostsOnly`, the balancers and the pgBackRest host are left out, HAProxy and pgBackRest off.
    init(databaseHostsOnly: Bool = false) throws {
        let lab = try String(contentsOfFile: Lab.inventory ?? "", encoding: .utf8)
        let settings = lab.split(separator: "\n").filter {
            $0.hasPrefix("ansible_ssh_private_key_file=") || $0.hasPrefix("keel_known_hosts_file=")
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("inventory/lab")
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("keel-deploy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/group_vars", withIntermediateDirectories: true)
        let hosts = try String(contentsOf: source.appendingPathComponent("hosts.ini"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("ansible_ssh_private_key_file=") && !$0.hasPrefix("keel_known_hosts_file=") }
            .joined(separator: "\n")
        try (hosts + "\n" + settings.joined(separator: "\n") + "\n").write(
            toFile: directory + "/hosts.ini", atomically: true, encoding: .utf8)
        // Patroni's loop every 5 s (its default is 10): each wait for a member's next cycle is half as long.
        let variables = try String(contentsOf: source.appendingPathComponent("group_vars/all.yml"), encoding: .utf8)
        try (variables + "\npatroni_loop_wait: 5\n").write(
            toFile: directory + "/group_vars/all.yml", atomically: true, encoding: .utf8)
        path = directory + "/hosts.ini"
        if databaseHostsOnly {
            try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(
                    of: "[balancers]\nh4 ansible_host=10.213.0.14\nh5 ansible_host=10.213.0.15\n", with: ""
                )
                .replacingOccurrences(of: "[pgbackrest]\nh4 ansible_host=10.213.0.14\n", with: "")
                .write(toFile: path, atomically: true, encoding: .utf8)
            try String(contentsOfFile: directory + "/group_vars/all.yml", encoding: .utf8)
                .replacingOccurrences(
                    of: "with_haproxy_load_balancing: true", with: "with_haproxy_load_balancing: false"
                )
                .replacingOccurrences(of: "pgbackrest_install: true", with: "pgbackrest_install: false")
                .write(toFile: directory + "/group_vars/all.yml", atomically: true, encoding: .utf8)
        }
    }

    /// The group variables edited: `postgresql_version` 13, installed from the lab's PGDG-style mirror (signed with
    /// its own key, standing in for apt.postgresql.org), so that a later `keel upgrade` has a newer release to go to.
    func onPostgreSQL13() async throws {
        let mirror = try await Lab.run("pgdg").split(separator: "\n").last?.split(separator: " ").map(String.init) ?? []
        try #require(mirror.count == 2, "lab pgdg prints the mirror's URL and key file")
        let path = directory + "/group_vars/all.yml"
        try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "postgresql_version: 15", with: "postgresql_version: 13")
            .appending(
                "\npgdg_repository: true\npgdg_repository_url: \(mirror[0])\npgdg_repository_key_file: \(mirror[1])\n"
            )
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A generated password from `.keel-secrets.yml`.
    func secret(_ name: String) throws -> String {
        let text = try String(contentsOfFile: directory + "/.keel-secrets.yml", encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.map {
            String($0.dropFirst(name.count + 2))
        } ?? ""
    }
}
