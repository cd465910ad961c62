import Foundation
import KeelTestSupport
import Testing

/// A PostgreSQL already running standalone on the `[master]` host becomes the cluster's leader with its data.
extension LabTests {
    @Test("a standalone PostgreSQL on the master host is taken over: its rows reach the replicas")
    func deployTakesOverStandalone() async throws {
        let cluster = try LabClusterInventory(databaseHostsOnly: true)
        try await Lab.run("reset")

        // Debian's own cluster, created by the package, with rows in it.
        _ = try await remote(
            cluster.path, "h1",
            "timeout 120 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq postgresql-15 >/dev/null"
                + " && cd /tmp && runuser -u postgres -- psql -XAtq -c 'CREATE TABLE legacy AS SELECT generate_series(1, 500) AS n'")

        let deploy = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(deploy.status == 0, "\(deploy.output)")
        #expect(deploy.output.contains("h1 | changed | standalone PostgreSQL taken over, its data kept"), "\(deploy.output)")
        let healthy = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(healthy.filter { $0["role"] as? String == "leader" }.compactMap { $0["name"] as? String } == ["h1"], "\(healthy)")
        for host in ["h1", "h2", "h3"] {
            let rows = try await sql(cluster.path, host, "SELECT count(*) FROM legacy")
            #expect(rows.output.contains("\(host) | ok | exit 0\n500\n"), "\(host): \(rows.output)")
        }
    }
}
