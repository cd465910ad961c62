import Foundation
import KeelTestSupport
import Testing

/// The cluster's exporters as an operator's Prometheus sees them: Debian's Prometheus on this machine, loaded with
/// the scrape block and the alert rules `keel monitoring-targets` prints.
extension LabTests {
    /// Debian's Prometheus, unpacked by the lab, scraping with `configuration` from `directory`, its API on
    /// 127.0.0.1:`port`; stopped when `body` ends, however it ends.
    private func withPrometheus<T>(
        _ binaries: String, directory: String, port: Int, _ body: () async throws -> T
    ) async throws -> T {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaries + "/prometheus")
        process.arguments = [
            "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
            "--web.listen-address=127.0.0.1:\(port)",
        ]
        let log = FileHandle(forWritingAtPath: directory + "/prometheus.log")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        return try await body()
    }

    /// The series a PromQL `query` returns now from the Prometheus on 127.0.0.1:`port`: each one's labels.
    private func series(_ query: String, port: Int) throws -> [[String: String]] {
        let (status, output) = try Shell.capture(
            "/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/api/v1/query", "--data-urlencode", "query=\(query)"])
        guard status == 0, let answer = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let data = answer["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { return [] }
        return result.compactMap { $0["metric"] as? [String: String] }
    }

    /// Waits up to `seconds` for `query` to return series that `accept` takes; returns the last answer.
    private func awaitSeries(
        _ query: String, port: Int, within seconds: Int, until accept: ([[String: String]]) -> Bool
    ) async throws -> [[String: String]] {
        var last: [[String: String]] = []
        for _ in 0..<seconds {
            last = try series(query, port: port)
            if accept(last) { return last }
            try await Task.sleep(for: .seconds(1))
        }
        return last
    }

    /// Turns `keel_monitoring` on for the running `cluster`: Debian's Prometheus loaded with keel
    /// monitoring-targets' scrape block and alert rules scrapes every exporter up, with the cluster's labels;
    /// without the password they refuse, and the monitoring role logs in to no PgBouncer from the network; a stopped
    /// replica fires the member-down alert; etcd refuses every service's certificate but Patroni's, Patroni's API every
    /// one but its clients'; the second
    /// deploy changes nothing; turned off again, the exporters are gone and the deploy after that changes nothing.
    func monitoringOnAndOff(_ cluster: LabClusterInventory) async throws {
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        try (variables + "\nkeel_monitoring: true\n").write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let deployed = try await KeelBinary.run(["deploy", "-i", cluster.path])
        try #require(deployed.status == 0, "\(deployed)")
        let events = cluster.path + ".events"
        let again = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        let changedAgain = try EventStream(path: events).changedPerHost
        #expect(again.status == 0 && changedAgain.values.allSatisfy { $0 == 0 }, "\(again)")

        // The operator's side: the files Prometheus reads, from Keel's secrets file, and the printed block.
        let work = cluster.directory + "/prometheus"
        let block = try await KeelBinary.run([
            "monitoring-targets", "-i", cluster.path, "--directory", work, "--write-files",
        ])
        try #require(block.status == 0, "\(block)")
        for (name, mode) in [("lab-ca.crt", 0o600), ("lab.password", 0o600), ("lab-patroni-client.key", 0o600)] {
            let written = try FileManager.default.attributesOfItem(atPath: "\(work)/\(name)")
            #expect((written[.posixPermissions] as? NSNumber)?.intValue == mode, "\(name): \(written)")
        }
        let rules = try await KeelBinary.run(["monitoring-targets", "-i", cluster.path, "--alert-rules"])
        try #require(rules.status == 0, "\(rules)")
        try rules.output.write(toFile: work + "/alerts.yml", atomically: true, encoding: .utf8)
        try
            ("global:\n  scrape_interval: 5s\n  evaluation_interval: 5s\nrule_files: [\"\(work)/alerts.yml\"]\n"
            + block.output).write(toFile: work + "/prometheus.yml", atomically: true, encoding: .utf8)
        let binaries = try #require(try await Lab.run("prometheus").split(separator: "\n").last.map(String.init))
        let checked = try Shell.capture(binaries + "/promtool", ["check", "rules", work + "/alerts.yml"])
        #expect(checked.status == 0, "\(checked.output)")
        let configured = try Shell.capture(binaries + "/promtool", ["check", "config", work + "/prometheus.yml"])
        #expect(configured.status == 0, "\(configured.output)")
        let targets = block.output.split(separator: "\n").filter { $0.hasPrefix("      - targets: ") }.count
        #expect(
            targets == 5 + 3 * 2 + 5 + 2 + 1, "node ×5, postgres and patroni ×3, pgbouncer ×5, haproxy ×2, the VIP")

        let port = 19090
        try await withPrometheus(binaries, directory: work, port: port) {
            let up = try await awaitSeries("up == 1", port: port, within: 90) { $0.count == targets }
            let down = try series("up == 0", port: port)
            #expect(up.count == targets, "up: \(up.count) of \(targets); down: \(down)")
            // Each exporter's own series, with the cluster's labels.
            for (query, count) in [
                ("pg_up{cluster=\"lab\", role=\"database\"} == 1", 3),
                ("patroni_primary{cluster=\"lab\"} == 1", 1), ("patroni_replica{cluster=\"lab\"} == 1", 2),
                ("patroni_xlog_received_location{cluster=\"lab\"} > 0", 2),
                ("haproxy_backend_status{job=\"lab-haproxy\", proxy=\"master\", state=\"UP\"} == 1", 2),
                ("haproxy_backend_active_servers{job=\"lab-vip\", proxy=\"master\"} == 1", 1),
                ("node_systemd_unit_state{cluster=\"lab\", name=\"patroni.service\", state=\"active\"} == 1", 3),
                ("pgbouncer_up{cluster=\"lab\"} == 1", 5),
                ("count by (host) (pgbouncer_pools_client_active_connections{cluster=\"lab\"})", 5),
            ] {
                let found = try await awaitSeries(query, port: port, within: 30) { $0.count == count }
                #expect(found.count == count, "\(query): \(found)")
            }

            // Without the password (or with a wrong one), the exporters that check one refuse.
            for endpoint in [
                "10.213.0.11:9100", "10.213.0.12:9187", "10.213.0.13:9127", "10.213.0.14:8405", "10.213.0.100:8405",
            ] {
                for credentials in [[], ["-u", "prometheus:wrong"]] {
                    let answer = try Shell.capture(
                        "/usr/bin/curl",
                        ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", work + "/lab-ca.crt"] + credentials
                            + ["https://\(endpoint)/metrics"])
                    #expect(answer.output == "401", "\(endpoint) \(credentials): \(answer.output)")
                }
            }

            // The monitoring role's password opens no PgBouncer from the network: the exporter's socket alone.
            for pooler in ["10.213.0.11", "10.213.0.14"] {
                let login = try Shell.capture(
                    "/usr/bin/psql",
                    [
                        "host=\(pooler) port=6432 dbname=pgbouncer user=keel_monitoring sslmode=require "
                            + "connect_timeout=5", "-Atc", "SHOW VERSION",
                    ],
                    environment: [
                        "PGPASSWORD": try cluster.secret("monitoring_role_password"), "PATH": "/usr/bin:/bin",
                    ])
                #expect(login.status != 0 && login.output.contains("reject"), "\(pooler): \(login.output)")
            }

            // HAProxy's metrics answer on the balancer's address and the VIP only.
            let bound = try await remote(
                cluster.path, "h4", "ss -Hltn 'sport = :8405' | awk '{print $4}' | sort -u")
            #expect(bound == ["10.213.0.100:8405", "10.213.0.14:8405"], "8405 bound: \(bound)")

            // A replica stopped: the member-down alert fires once it has held for its 30 s.
            let replica = try #require(try series("patroni_replica{cluster=\"lab\"} == 1", port: port).first?["host"])
            _ = try await remote(cluster.path, replica, "systemctl stop patroni")
            let stopped = ContinuousClock.now
            let firing = try await awaitSeries(
                "ALERTS{alertname=\"KeelMemberDown\", alertstate=\"firing\", host=\"\(replica)\"}", port: port,
                within: 120
            ) { !$0.isEmpty }
            #expect(!firing.isEmpty, "KeelMemberDown for \(replica) did not fire within 120 s")
            print("KeelMemberDown fired \(ContinuousClock.now - stopped) after \(replica)'s Patroni stopped")
            _ = try await remote(cluster.path, replica, "systemctl start patroni")
        }

        try await certificatesOpenOnlyTheirService(cluster)
        try await balancerLeavesAndReturns(cluster)

        // Off: every exporter Keel installed goes, with its files; HAProxy serves no metrics; then nothing to do.
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let off = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(off.status == 0, "\(off)")
        for host in ["h1", "h2", "h3", "h4", "h5"] {
            let left = try await remote(
                cluster.path, host,
                "dpkg-query -W -f '${db:Status-Status} ${Package}\\n' 'prometheus-*' 2>/dev/null | grep '^installed' || true; "
                    + "ls -d /etc/prometheus/keel /etc/systemd/system/prometheus-*.service.d 2>/dev/null || true; "
                    + "grep -s 'frontend prometheus' /etc/haproxy/haproxy.cfg || true")
            #expect(left.isEmpty, "\(host) keeps: \(left)")
        }
        let offAgain = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        let changedOffAgain = try EventStream(path: events).changedPerHost
        #expect(offAgain.status == 0 && changedOffAgain.values.allSatisfy { $0 == 0 }, "\(offAgain)")
    }

    /// remove-balancer takes h5's exporters away and prints the scrape block without its targets; add-balancer
    /// installs them again and prints the block with them.
    private func balancerLeavesAndReturns(_ cluster: LabClusterInventory) async throws {
        let line = "h5 ansible_host=10.213.0.15\n"
        let hosts = try String(contentsOfFile: cluster.path, encoding: .utf8)
        /// The scrape block a flow printed after it ended, and its targets on h5.
        func block(_ output: String) -> (printed: Bool, onH5: [String]) {
            guard let start = output.range(of: "The cluster's scrape targets now") else { return (false, []) }
            let targets = output[start.upperBound...].split(separator: "\n").filter { $0.contains("- targets: [") }
            return (!targets.isEmpty, targets.filter { $0.contains("10.213.0.15:") }.map(String.init))
        }
        let removed = try await KeelBinary.run(["remove-balancer", "-i", cluster.path, "--yes", "h5", "h5"])
        try #require(removed.status == 0, "\(removed)")
        let afterRemoval = block(removed.output)
        #expect(afterRemoval.printed && afterRemoval.onH5.isEmpty, "\(removed.output)")
        let left = try await remote(
            cluster.path, "h5",
            "dpkg-query -W -f '${db:Status-Status} ${Package}\\n' 'prometheus-*' 2>/dev/null | grep '^installed' || true; "
                + "ls -d /etc/prometheus/keel 2>/dev/null || true")
        #expect(left.isEmpty, "h5 keeps: \(left)")

        try hosts.replacingOccurrences(of: line, with: "h5 ansible_host=10.213.0.15 new_node=true\n")
            .write(toFile: cluster.path, atomically: true, encoding: .utf8)
        let added = try await KeelBinary.run(["add-balancer", "-i", cluster.path])
        try hosts.write(toFile: cluster.path, atomically: true, encoding: .utf8)
        try #require(added.status == 0, "\(added)")
        #expect(
            block(added.output).onH5.count == 3, "h5's node, PgBouncer and HAProxy targets: \(added.output)")
        let serving = try await remote(
            cluster.path, "h5",
            "for p in 9100 9127 8405; do curl -s -o /dev/null -w '%{http_code}\\n' --cacert /etc/haproxy/cluster-ca.crt "
                + "https://10.213.0.15:$p/metrics; done")
        #expect(serving == ["401", "401", "401"], "h5's exporters ask for the password again: \(serving)")
    }
}
