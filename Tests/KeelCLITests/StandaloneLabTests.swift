import Foundation
import KeelTestSupport
import Testing

/// A PostgreSQL already running standalone on the `[master]` host becomes the cluster's leader with its data; an
/// unsafe Patroni from Debian beside it is replaced when the inventory says so; another cluster beside it stops the
/// deploy before anything changes.
extension LabTests {
    @Test(
        "a standalone PostgreSQL on the master host is taken over: its rows reach the replicas; Debian's Patroni 3.0.2 there is replaced with keel_upgrade_patroni",
        .lab(hosts: 3, fresh: true)
    )
    func deployTakesOverStandalone() async throws {
        let cluster = try LabClusterInventory(databaseHostsOnly: true)

        // Debian's own cluster, created by the package, with rows in it; Debian's Patroni 3.0.2 set up for etcd v3.
        _ = try await remote(
            cluster.path, "h1",
            "timeout 120 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends postgresql-15 patroni >/dev/null"
                + " && printf 'scope: old\\netcd3:\\n  hosts: 10.213.0.11:2379\\n' > /etc/patroni/config.yml"
                + " && cd /tmp && runuser -u postgres -- psql -XAtq -c 'CREATE TABLE legacy AS SELECT generate_series(1, 500) AS n'"
        )
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        try (variables + "\nkeel_upgrade_patroni: true\n").write(
            toFile: variablesPath, atomically: true, encoding: .utf8)

        // A second Debian cluster beside it is not Keel's to stop: pre-flight names it, and nothing changes.
        _ = try await remote(cluster.path, "h1", "pg_createcluster 15 other -p 5433 --start >/dev/null")
        let refused = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(
            refused.status != 0 && refused.output.contains("pre-flight failed on h1, nothing was changed")
                && refused.output.contains(
                    "another PostgreSQL cluster is set up here: 15/other on port 5433 (online), data in "
                        + "/var/lib/postgresql/15/other; Keel would stop it"),
            "\(refused)")
        let untouched = try await remote(
            cluster.path, "h1", "pg_lsclusters -h | awk '{print $2, $4}' | tr '\\n' ' '; pg_dropcluster --stop 15 other"
        )
        #expect(untouched.joined().contains("main online other online"), "\(untouched)")

        let deploy = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(deploy.status == 0, "\(deploy)")
        #expect(
            deploy.output.contains(
                "h1 | changed | takeover of a standalone PostgreSQL in the data directory, if one is there"),
            "\(deploy)")
        let healthy = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            healthy.filter { $0["role"] as? String == "leader" }.compactMap { $0["name"] as? String } == ["h1"],
            "\(healthy)")
        for host in ["h1", "h2", "h3"] {
            let rows = try await sql(cluster.path, host, "SELECT count(*) FROM legacy")
            #expect(rows.output.contains("\(host) | ok | exit 0\n500\n"), "\(host): \(rows.output)")
        }
        let patroni = try await remote(
            cluster.path, "h1",
            "dpkg-query -W -f '${db:Status-Abbrev}' patroni; echo; systemctl show -p ExecStart --value patroni"
        ).joined(separator: "\n")
        #expect(
            !patroni.contains("ii ") && patroni.contains("/opt/patroni/bin/patroni"),
            "Debian's Patroni is gone, Keel's runs: \(patroni)")

        // Replaced, the old Patroni no longer stops a deploy that does not ask for the upgrade; that run verifies
        // every member's TLS (sslmode=verify-full, where the takeover preferred it): patroni.yml and a reload on
        // each, nothing else; then nothing changes.
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let events = cluster.path + ".events"
        try await deployVerifyingMemberTLS(cluster, events: events)
        let again = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedPerHost == ["h1": 0, "h2": 0, "h3": 0], "\(again)")
    }
}
