import Foundation
import KeelTestSupport
import Testing

/// `keel upgrade` from 13 to 15 on the running Type A cluster (3 members, 2 balancers with PgBouncer behind the
/// VIP) under the caller's writers (through VIP:5000 on `writerHost`, through PgBouncer at VIP:6432 on
/// `pooledHost`) and a reader through VIP:5001: a stopped replica, and a link planted where pg_upgrade's output goes,
/// refuse it before anything stops; --check fails no writer; then every member on 15, every acknowledged row on every
/// member, the PgBouncer writer's errors and longest stall, backups of 15, keel deploy on 15 changes nothing;
/// --cleanup removes 13 and changes nothing when run again. The writers go on.
extension LabTests {
    func majorUpgrade(_ cluster: LabClusterInventory, writerHost: String, pooledHost: String) async throws {
        let inventory = cluster.path
        let upgrade = ["upgrade", "-i", inventory, "--to", "15"]

        // A replica down (the asynchronous one: the writers go on): refused before anything stops or is installed.
        let before = try await members(inventory, within: 60) { streamingReplicas($0).count == 2 }
        let stopped = try #require(
            (before.first { $0["role"] as? String == "replica" } ?? before.first { $0["role"] as? String != "leader" })?[
                "name"] as? String)
        _ = try await remote(inventory, stopped, "systemctl stop patroni")
        let refused = try await KeelBinary.run(upgrade + ["--confirm", "lab"])
        #expect(
            refused.status != 0 && refused.output.contains("the cluster is not healthy")
                && !refused.output.contains("PLAY "), "\(refused)")
        let untouched = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1:h2:h3", "--", "dpkg-query -W postgresql-15 2>/dev/null | wc -l",
        ])
        #expect(!untouched.output.contains("\n1\n"), "nothing installed: \(untouched)")
        _ = try await remote(inventory, stopped, "systemctl start patroni")
        _ = try await members(inventory, within: 120) { streamingReplicas($0).count == 2 }

        // A link postgres planted where pg_upgrade's output goes, to a file of root's: refused before anything
        // stops, the file as it was.
        let log = "/var/log/postgresql/keel-pg_upgrade.log"
        _ = try await remote(
            inventory, stopped,
            "printf 'root only\\n' > /etc/keel-test-victim && rm -f \(log) "
                + "&& cd / && runuser -u postgres -- ln -s /etc/keel-test-victim \(log)")
        let planted = try await KeelBinary.run(upgrade + ["--confirm", "lab"])
        let victim = try await remote(inventory, stopped, "cat /etc/keel-test-victim; stat -c %U /etc/keel-test-victim")
        #expect(
            planted.status != 0 && planted.output.contains("\(log) is a link") && !planted.output.contains("PLAY "),
            "\(planted)")
        #expect(victim == ["root only", "root"], "root followed postgres's link: \(victim)")
        _ = try await remote(inventory, stopped, "rm -f \(log) /etc/keel-test-victim")

        try await startReader(cluster, on: "h1")
        try await Task.sleep(for: .seconds(3))
        // The new release installed beforehand, as an operator may: --check then runs pg_upgrade --check against a
        // schema-only copy of the running cluster.
        let installed = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1:h2:h3", "--",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null",
        ])
        #expect(installed.status == 0, "\(installed)")
        let plan = try await KeelBinary.run(upgrade + ["--check"])
        #expect(
            plan.status == 2 && plan.output.contains("PgBouncer paused on h4, h5")
                && plan.output.contains("THE POINT OF NO RETURN")
                && plan.output.contains("| ok | pg_upgrade --check against a schema-only copy"), "\(plan)")
        try await pooledWriterClean(cluster, pooledHost, after: "keel upgrade --check")

        let started = ContinuousClock.now
        let startedOnWriter = try #require(try await remote(inventory, writerHost, "date +%s%N").first)
        let upgraded = try await KeelBinary.run(upgrade + ["--confirm", "lab"])
        let endedOnWriter = try #require(try await remote(inventory, writerHost, "sleep 3; date +%s%N").first)
        print("keel upgrade 13 → 15 of 3 members and 2 balancers: \(ContinuousClock.now - started)")
        #expect(upgraded.status == 0, "\(upgraded)")
        let gap = try await longestWait(inventory, writerHost: writerHost, from: startedOnWriter, to: endedOnWriter)
        let stall = try await longestWait(
            inventory, writerHost: pooledHost, from: startedOnWriter, to: endedOnWriter, times: "/tmp/pooled.times")
        let reads = try await stopReader(cluster, on: "h1")
        let pooledErrors = try await remote(inventory, pooledHost, "cat /tmp/pooled.errors 2>/dev/null || true")
            .filter { !$0.isEmpty }
        print(
            "upgrade under load: the writer through VIP:5000's longest write gap \(gap) s; the writer through "
                + "PgBouncer (VIP:6432) \(pooledErrors.count) errors, longest stall \(stall) s; the reader through "
                + "VIP:5001 \(reads.errors) errors in \(reads.reads) reads")
        // The leader is down while pg_upgrade runs, and the replicas with it; once the new leader serves, reads go
        // to it while the replicas are cloned afresh (HAProxy's backup servers): reads fail only in that window.
        // Each error's first line begins with its time (psql's message may go on over more lines).
        let readErrors = try await remote(inventory, "h1", "grep '^[0-9][0-9]:' /tmp/reader.errors || true")
            .filter { !$0.isEmpty }
        /// A line's "HH:MM:SS" as seconds of the day.
        func clock(_ line: String?) -> Int {
            let parts = (line ?? "").prefix(8).split(separator: ":").compactMap { Int($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : 0
        }
        let unread = readErrors.isEmpty ? 0 : clock(readErrors.last) - clock(readErrors.first) + 1
        print("the reader's errors span \(unread) s: \(readErrors.first ?? "") … \(readErrors.last ?? "")")
        #expect(
            Double(unread) <= gap + 10, "reads failed for \(unread) s, the writes for \(gap) s: \(readErrors.suffix(5))"
        )
        #expect(pooledErrors.isEmpty, "the writer through PgBouncer failed: \(pooledErrors)")
        #expect(stall <= 30, "the PgBouncer writer's stall: \(stall) s")

        try await upgradedTo15(
            cluster, backupsOn: "h4", as: "pgbackrest",
            rows: [("acked", writerHost, "/tmp/acked"), ("pooled", pooledHost, "/tmp/pooled.acked")])

        // The old release removed: its data directories and packages; the cluster serves on; a rerun changes nothing.
        let cleanup = ["upgrade", "-i", inventory, "--cleanup", "--confirm", "lab"]
        let cleaned = try await KeelBinary.run(cleanup)
        #expect(cleaned.status == 0 && cleaned.output.contains("/var/lib/postgresql/13/main deleted"), "\(cleaned)")
        let gone = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1:h2:h3", "--",
            "echo $(ls -d /var/lib/postgresql/13/main 2>/dev/null | wc -l) $(dpkg-query -W -f '${Status}\\n' postgresql-13 2>/dev/null | grep -c ' installed')",
        ])
        #expect(gone.output.components(separatedBy: "\n0 0\n").count - 1 == 3, "the old release gone: \(gone)")
        let serving = try await members(inventory, within: 30) { streamingReplicas($0).count == 2 }
        #expect(streamingReplicas(serving).count == 2, "\(serving)")
        let cleanupEvents = inventory + ".cleanup.events"
        let cleanedAgain = try await KeelBinary.run(cleanup + ["--events", cleanupEvents])
        let cleanupStream = try EventStream(path: cleanupEvents)
        #expect(
            cleanedAgain.status == 0 && cleanupStream.changedPerHost.values.allSatisfy { $0 == 0 },
            "\(cleanupStream.changedSteps)")
    }

    /// The cluster after `keel upgrade --to 15`: every member runs 15, one leader and two streaming replicas; every
    /// row each writer got acknowledged (`rows`: its table, the writer's host, its file of ids) on every member; the
    /// repository on `backupsOn` (pgBackRest run as `user`) checked, upgraded, with a full backup; then, the
    /// inventory set to 15, `keel deploy` changes nothing.
    func upgradedTo15(
        _ cluster: LabClusterInventory, backupsOn host: String, as user: String,
        rows: [(table: String, writer: String, file: String)]
    ) async throws {
        let members = ["h1", "h2", "h3"]
        for member in members {
            let running = try await sql(cluster.path, member, "SHOW server_version_num")
            #expect(running.output.contains("\n150"), "\(member) runs 15: \(running)")
        }
        let settled = try await self.members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            settled.filter { $0["role"] as? String == "leader" }.count == 1 && streamingReplicas(settled).count == 2,
            "\(settled)")
        for (table, writer, file) in rows {
            let acknowledged = Set(try await remote(cluster.path, writer, "cat \(file)").compactMap { Int($0) })
            for member in members {
                // A writer that goes on may have rows a replica replays a moment later.
                var missing = acknowledged
                for _ in 0..<10 where !missing.isEmpty {
                    let present = try await remote(
                        cluster.path, member, "runuser -u postgres -- psql -d app -XAtqc 'SELECT id FROM \(table)'")
                    missing = acknowledged.subtracting(present.compactMap { Int($0) })
                    if !missing.isEmpty { try await Task.sleep(for: .seconds(1)) }
                }
                #expect(missing.isEmpty, "\(member) lacks \(missing.count) acknowledged rows of \(table)")
            }
        }
        let pgbackrest = "runuser -u \(user) -- pgbackrest --stanza=lab"
        let backups = try await remote(cluster.path, host, "\(pgbackrest) check && \(pgbackrest) info")
        #expect(
            backups.contains { $0.contains("wal archive min/max (15)") }
                && backups.contains { $0.contains("full backup: ") }, "\(backups)")

        let variables = cluster.directory + "/group_vars/all.yml"
        try String(contentsOfFile: variables, encoding: .utf8)
            .replacingOccurrences(of: "postgresql_version: 13", with: "postgresql_version: 15")
            .write(toFile: variables, atomically: true, encoding: .utf8)
        let events = cluster.path + ".upgraded.events"
        let deploy = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        #expect(deploy.status == 0, "\(deploy)")
        let stream = try EventStream(path: events)
        #expect(stream.changedPerHost.values.allSatisfy { $0 == 0 }, "\(stream.changedSteps)")
    }
}
