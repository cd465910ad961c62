import Foundation
import KeelTestSupport
import Testing

/// Runs killed with SIGKILL at chosen steps, then run again: every rerun converges.
extension LabTests {
    /// Starts `keel ARGUMENTS --events FILE` (`events`, or a file of its own) and kills it (SIGKILL) as soon as
    /// `reached` says so (it reads the events file); returns nil when that came before keel ended on its own, else
    /// keel's output.
    func deployKilled(
        _ arguments: [String], events: String? = nil, when reached: (String) async throws -> Bool
    ) async throws -> String? {
        let events =
            events
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("keel-kill-\(UUID().uuidString)").path
        let log = events + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? output.close() }
        let keel = Process()
        keel.executableURL = URL(fileURLWithPath: KeelBinary.path)
        keel.arguments = arguments + ["--events", events]
        keel.standardOutput = output
        keel.standardError = output
        try keel.run()
        let deadline = ContinuousClock.now + .seconds(900)
        while keel.isRunning, ContinuousClock.now < deadline {
            if try await reached((try? String(contentsOfFile: events, encoding: .utf8)) ?? "") {
                kill(keel.processIdentifier, SIGKILL)
                keel.waitUntilExit()
                return nil
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        keel.waitUntilExit()
        return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }

    /// Kills the deploy as soon as `host` has finished `step` (a prefix of its name); nil when it did.
    func deployKilled(after step: String, on host: String, _ arguments: [String], events: String? = nil)
        async throws -> String?
    {
        try await deployKilled(arguments, events: events) { events in
            events.split(separator: "\n").contains { line in
                line.contains(#""event":"step""#) && line.contains(#""host":"\#(host)""#)
                    && line.contains(#""step":"\#(step)"#)
            }
        }
    }

    @Test(
        "killed with SIGKILL inside dpkg twice (sessions kept, then dropped: dpkg ends whole), at three random moments and at five steps of a first deploy and during a parameter change under write load, each rerun converges; then 0 changed; switchovers under the same writer and one through the balancers' PgBouncer (refused cases change nothing); the major upgrade from PostgreSQL 13 to 15 (a stopped replica refuses it; --check fails no writer; every member on 15, every row everywhere, the PgBouncer writer's stall, backups of 15, deploy on 15 changes nothing, --cleanup); a rolling update from PostgreSQL 15.18 to 15.20, killed and rerun; no acknowledged row lost, the PgBouncer writer never failed, no password rotated; then keel_monitoring on: Debian's Prometheus with the printed scrape block and alert rules finds every exporter up, the exporters refuse without the password, a stopped replica fires its alert, 0 changed on the rerun; turned off, the exporters are gone",
        .lab(hosts: 5, fresh: true)
    )
    func killedRunsConverge() async throws {
        let cluster = try LabClusterInventory()
        let inventory = cluster.path
        let deploy = ["deploy", "-i", inventory]
        let secretsFile = cluster.directory + "/.keel-secrets.yml"
        var clock = ContinuousClock.now
        /// Prints how long the phase ending now took, for the suite's time budget.
        func phase(_ name: String) {
            print("kill-rerun phase \(name): \(ContinuousClock.now - clock)")
            clock = .now
        }

        // The first deploy, killed as each part begins: etcd configured but not started, Patroni configured but
        // not started, the leader starting, a replica cloning, the first backup running.
        let points = [
            ("template /etc/default/etcd", "h1"), ("template /etc/patroni/patroni.yml", "h3"),
            ("service patroni", "h1"), ("service patroni", "h2"),
            ("first full backup of stanza", "h4"),
        ]
        try await holdOlderReleases(cluster)
        // PostgreSQL 13 from the lab's PGDG mirror, upgraded to 15 (the pinned 15.18) before the update.
        try await cluster.onPostgreSQL13()
        // Killed inside dpkg as the first deploy installs packages, with sessions kept (the keeper ends what the run
        // started), then, PostgreSQL's packages taken off h2 again, with its connections simply dropped.
        try await killedInDpkg(deploy, inventory: inventory, on: "h1")
        _ = try await remote(
            inventory, "h2",
            "! dpkg -s postgresql-13 >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "
                + "-o DPkg::Lock::Timeout=600 postgresql-13 >/dev/null"
        )
        try await killedInDpkg(deploy + ["--keep-connections", "0"], inventory: inventory, on: "h2")
        // Three moments at random, wherever the deploy has got to by then.
        for _ in 0..<3 {
            let moment = Duration.milliseconds(Int.random(in: 2000...20000))
            print("kill-rerun: killed \(moment) into a deploy")
            let started = ContinuousClock.now
            let unkilled = try await deployKilled(deploy) { _ in ContinuousClock.now - started >= moment }
            #expect(unkilled == nil, "the deploy ended before \(moment):\n\(unkilled ?? "")")
        }
        var secrets = try? String(contentsOfFile: secretsFile, encoding: .utf8)
        for (step, host) in points {
            let unkilled = try await deployKilled(after: step, on: host, deploy)
            #expect(unkilled == nil, "the deploy ended before \(host): \(step):\n\(unkilled ?? "")")
            // Generated once, on the first run, and never again.
            let now = try String(contentsOfFile: secretsFile, encoding: .utf8)
            #expect(secrets == nil || secrets == now, "the secrets changed after the kill at \(host): \(step)")
            secrets = now
        }
        let finished = try await KeelBinary.run(deploy)
        #expect(finished.status == 0, "\(finished)")
        let events = inventory + ".events"
        let again = try await KeelBinary.run(deploy + ["--events", events])
        let changedAgain = try EventStream(path: events).changedPerHost
        #expect(again.status == 0 && changedAgain.values.allSatisfy { $0 == 0 }, "\(again)")
        #expect(try String(contentsOfFile: secretsFile, encoding: .utf8) == secrets, "no password rotated")
        let healthy = try await KeelBinary.run(["status", "-i", inventory])
        #expect(healthy.status == 0, "\(healthy)")
        phase("first deploy killed ten times")

        // A restart-requiring change under write load, killed as the members begin to apply it.
        _ = try await appSQL(cluster, on: "h2", "10.213.0.100", 5000, "CREATE TABLE acked (id int PRIMARY KEY)")
        try await startWriter(cluster, on: "h2", seconds: 1200)
        let variables = cluster.directory + "/group_vars/all.yml"
        try String(contentsOfFile: variables, encoding: .utf8)
            .replacingOccurrences(of: #"value: "200""#, with: #"value: "250""#)
            .write(toFile: variables, atomically: true, encoding: .utf8)
        // Killed the moment the change reaches Patroni's configuration, before any member flags it for a restart (on
        // its next cycle): the rerun must still restart them, not report the rolling restart done.
        let patched = try await deployKilled(deploy) { [self] _ in
            let config = try await remote(
                inventory, "h1",
                "\(Self.patroniCurl) -s -m 3 https://10.213.0.11:8008/config | grep -o '\"max_connections\": [0-9\"]*' || true"
            )
            return config.first?.contains("250") == true
        }
        #expect(patched == nil, "the deploy ended before the configuration change:\n\(patched ?? "")")
        let converged = try await KeelBinary.run(deploy)
        #expect(converged.status == 0, "\(converged)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(inventory, host, "SHOW max_connections")
            #expect(running.output.contains("\n250\n"), "\(host) runs the new value: \(running.output)")
        }
        let noop = try await KeelBinary.run(deploy + ["--events", events])
        let changedNoop = try EventStream(path: events).changedPerHost
        #expect(noop.status == 0 && changedNoop.values.allSatisfy { $0 == 0 }, "\(noop)")
        phase("parameter change killed")
        // A second writer, through the balancers' PgBouncer: it must never see an error.
        try await startPooledWriter(cluster, on: "h3")
        try await switchovers(cluster, writerHost: "h2")
        try await pooledWriterClean(cluster, "h3", after: "the switchovers")
        phase("switchovers")
        try await majorUpgrade(cluster, writerHost: "h2", pooledHost: "h3")
        try await pooledWriterClean(cluster, "h3", after: "the upgrade")
        phase("major upgrade")
        try await updates(cluster, writerHost: "h2")
        try await pooledWriterClean(cluster, "h3", after: "the update")
        phase("update")
        let pooled = try await stopPooledWriter(cluster, on: "h3")
        print(
            "the writer through PgBouncer (VIP:6432): \(pooled.acknowledged) rows acknowledged, \(pooled.missing) "
                + "missing, longest wait \(pooled.longestWait) s")
        #expect(pooled.missing == 0 && pooled.acknowledged > 20, "\(pooled)")
        _ = try await remote(
            inventory, "h2",
            "touch /tmp/writer.stop; for i in $(seq 30); do [ -f /tmp/writer.done ] && break; sleep 1; done")
        let rows = try await acknowledgedRows(cluster, writtenOn: "h2")
        #expect(rows.missing == 0 && rows.acknowledged > 20, "missing, acknowledged: \(rows)")
        let failed = try await remote(inventory, "h2", "cat /tmp/writer.errors 2>/dev/null | grep -c '^[0-9]' || true")
        print("the writer: \(rows.acknowledged) rows acknowledged, \(failed.first ?? "?") inserts failed")
        #expect(try String(contentsOfFile: secretsFile, encoding: .utf8) == secrets, "no password rotated")
        try await monitoringOnAndOff(cluster)
        phase("monitoring")
    }
}
