import Foundation
import KeelTestSupport
import Testing

/// Bad input stops `keel deploy` before any host is changed: mistakes in the inventory before a connection is
/// made, mistakes only the hosts reveal in the pre-flight play.
extension LabTests {
    /// Runs `keel deploy` on a copy of the lab inventory edited by `edit` (hosts.ini, group_vars/all.yml).
    private func deployEdited(_ edit: (inout String, inout String) -> Void) async throws -> (
        status: Int32, output: String, changed: [String]
    ) {
        let cluster = try LabClusterInventory()
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        var hosts = try String(contentsOfFile: cluster.path, encoding: .utf8)
        var variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        edit(&hosts, &variables)
        try hosts.write(toFile: cluster.path, atomically: true, encoding: .utf8)
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let events = cluster.path + ".events"
        let result = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        let changed = FileManager.default.fileExists(atPath: events) ? try EventStream(path: events).changedSteps : []
        return (result.status, result.output, changed)
    }

    @Test(
        "bad input stops the deploy with a clear message and no host touched: unknown variable, wrong type, two etcd members, VIP outside the subnet, a shared backup repository not mounted, an unreachable host, an unsafe Patroni already running",
        .lab(hosts: 5, fresh: true)
    )
    func deployRefusesBadInput() async throws {

        let unknown = try await deployEdited { _, variables in variables += "\nsynchronus_mode: true\n" }
        #expect(unknown.status != 0 && unknown.changed.isEmpty)
        #expect(
            unknown.output.contains("group_vars/all.yml:")
                && unknown.output.contains("unknown variable 'synchronus_mode'"), "\(unknown.output)")
        #expect(unknown.output.contains("did you mean 'synchronous_mode'?"), "\(unknown.output)")

        let wrongType = try await deployEdited { _, variables in
            variables = variables.replacingOccurrences(
                of: "postgresql_version: 15", with: "postgresql_version: fifteen")
        }
        #expect(wrongType.status != 0 && wrongType.changed.isEmpty)
        #expect(
            wrongType.output.contains("group_vars/all.yml:")
                && wrongType.output.contains(
                    "postgresql_version for host h1 must be an integer, not a string 'fifteen'"),
            "\(wrongType.output)")

        let twoEtcd = try await deployEdited { hosts, _ in
            hosts = hosts.replacingOccurrences(
                of: "h2 ansible_host=10.213.0.12\nh3 ansible_host=10.213.0.13\n\n[balancers]",
                with: "h2 ansible_host=10.213.0.12\n\n[balancers]")
        }
        #expect(twoEtcd.status != 0 && twoEtcd.changed.isEmpty)
        #expect(
            twoEtcd.output.contains("hosts.ini:") && twoEtcd.output.contains("[etcd_cluster] has 2 member(s)"),
            "\(twoEtcd.output)")

        let foreignVIP = try await deployEdited { _, variables in
            variables = variables.replacingOccurrences(
                of: "cluster_vip: \"10.213.0.100\"", with: "cluster_vip: \"10.99.0.100\"")
        }
        #expect(foreignVIP.status != 0 && foreignVIP.changed.isEmpty, "\(foreignVIP.changed)")
        #expect(foreignVIP.output.contains("pre-flight failed on h4, nothing was changed"), "\(foreignVIP.output)")
        #expect(foreignVIP.output.contains("cluster_vip 10.99.0.100 is outside 10.213.0.14/24"), "\(foreignVIP.output)")

        try await Lab.run("poweroff", "h5")
        let unreachable = try await deployEdited { _, _ in }
        try await Lab.run("start", "h5")
        #expect(unreachable.status != 0 && unreachable.changed.isEmpty, "\(unreachable.changed)")
        #expect(unreachable.output.contains("h5 | UNREACHABLE"), "\(unreachable.output)")
        #expect(!unreachable.output.contains("PLAY common"), "the run stops in pre-flight: \(unreachable.output)")

        let unmounted = try await deployEdited { hosts, variables in
            hosts = hosts.replacingOccurrences(of: "[pgbackrest]\nh4 ansible_host=10.213.0.14\n", with: "")
            variables += "\npgbackrest_repo_path: /srv/keel-shared/not-mounted\n"
        }
        #expect(unmounted.status != 0 && unmounted.changed.isEmpty, "\(unmounted.changed)")
        #expect(unmounted.output.contains("pre-flight failed on h1, nothing was changed"), "\(unmounted.output)")
        #expect(
            unmounted.output.contains("the pgBackRest repository /srv/keel-shared/not-mounted does not exist here"),
            "\(unmounted.output)")

        // Nothing of the cluster reached any host.
        let untouched = try await KeelBinary.run([
            "exec", "-i", inventory, "--",
            "if dpkg -s etcd-server postgresql-15 haproxy >/dev/null 2>&1 || [ -e /etc/patroni ] || [ -e /etc/pgbackrest ]; then echo touched; else echo untouched; fi",
        ])
        #expect(untouched.output.components(separatedBy: "\nuntouched\n").count - 1 == 5, "\(untouched)")

        // A Patroni older than 3.0.3 already managing PostgreSQL with etcd v3 (Debian 12's 3.0.2) is refused
        // unless the inventory says to upgrade it.
        _ = try await remote(
            inventory, "h2",
            "timeout 120 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends patroni >/dev/null && mkdir -p /etc/patroni && printf 'scope: old\\netcd3:\\n  hosts: 10.213.0.12:2379\\n' > /etc/patroni/config.yml"
        )
        let oldPatroni = try await deployEdited { _, _ in }
        #expect(oldPatroni.status != 0 && oldPatroni.changed.isEmpty, "\(oldPatroni.changed)")
        #expect(oldPatroni.output.contains("pre-flight failed on h2, nothing was changed"), "\(oldPatroni.output)")
        #expect(
            oldPatroni.output.contains("Patroni 3.0.2 manages PostgreSQL here with etcd v3"), "\(oldPatroni.output)")
        #expect(oldPatroni.output.contains("set keel_upgrade_patroni: true"), "\(oldPatroni.output)")
    }
}
