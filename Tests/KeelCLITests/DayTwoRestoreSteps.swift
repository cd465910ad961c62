import Foundation
import Keel
import KeelTestSupport
import Testing

/// Point-in-time recovery on the running day-2 cluster: marker rows written before and after a moment T, the
/// table dropped and a backup taken after T; restores refused before anything stops, one killed and abandoned, one
/// killed and resumed, one to the later backup set (a repeat to the same T is the journal's unit tests'); each time every member holds exactly what T (or the set)
/// held, on a new timeline, and writes, archiving and backups work.
extension LabTests {
    func restoreFlows(_ cluster: LabClusterInventory, writerHost: String) async throws {
        let inventory = cluster.path
        _ = try await appSQL(cluster, on: writerHost, "10.213.0.100", 5000, "CREATE TABLE marks (id int PRIMARY KEY)")
        let early = try await writeMarks(cluster, on: writerHost, from: 1, seconds: 8)
        let target = try #require(try await viaVIP(cluster, writerHost, "SELECT now()").first)
        try await Task.sleep(for: .seconds(2))
        let late = try await writeMarks(cluster, on: writerHost, from: 100_000, seconds: 4)
        #expect(early.count > 10 && late.count > 5, "marks written before and after T: \(early.count), \(late.count)")
        _ = try await viaVIP(
            cluster, writerHost, "DROP TABLE marks; CREATE TABLE later (id int); INSERT INTO later VALUES (1)")
        let pgbackrest = "cd / && runuser -u pgbackrest -- pgbackrest --stanza=lab"
        _ = try await remote(inventory, "h4", "\(pgbackrest) --type=full backup")
        let laterSet = try #require(
            try await remote(
                inventory, "h4",
                "\(pgbackrest) info --output=json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"backup\"][-1][\"label\"])'"
            ).first)

        // Refused before anything stops; the cluster runs on as it was.
        let before = try await restoredMembers(cluster)
        let restore = ["restore", "-i", inventory]
        for (arguments, reason) in [
            (["--target-time", "2026-11-22 14:02:16"], "is not a moment with a time zone"),
            (["--target-time", "2099-01-01 00:00:00Z"], "is in the future"),
            (["--target-time", "2000-01-01 00:00:00Z", "--confirm", "lab"], "is before the oldest backup"),
            (["--target-time", target, "--confirm", "wrong"], "does not name the cluster (lab): nothing was changed"),
            // An inventory naming another cluster does not describe these hosts: their Patroni serves lab.
            (
                ["-e", "patroni_cluster_name=lab2", "--target-time", target, "--confirm", "lab2"],
                "serves the Patroni cluster 'lab' (its patroni.yml)"
            ),
        ] {
            let refused = try await KeelBinary.run(restore + arguments)
            #expect(refused.status != 0 && refused.output.contains(reason), "\(arguments): \(refused)")
        }
        let unchanged = try await restoredMembers(cluster)
        #expect(unchanged.timeline == before.timeline && unchanged.leader == before.leader, "nothing stopped")

        // Killed (SIGKILL) once Patroni stopped on the leader, before any data is replaced, then abandoned: Patroni
        // runs again on every member, on the data it had (the later table there, the marks dropped). The leader's
        // PgBouncer takes 20 s to stop (it stops after Patroni in the same step), so that the kill lands there
        // and not a moment too late, when the next step has begun replacing the data and abandoning is refused.
        let toTarget = restore + ["--target-time", target, "--confirm", "lab"]
        let dropIns = "/etc/systemd/system/pgbouncer.service.d"
        let slowStop = dropIns + "/keel-test-slow-stop.conf"
        _ = try await remote(
            inventory, before.leader,
            "mkdir -p \(dropIns) && printf '[Service]\\nExecStopPost=/bin/sleep 20\\n' > \(slowStop) "
                + "&& systemctl daemon-reload")
        let stoppedKill = try await deployKilled(toTarget) { [self] events in
            guard events.contains(#""play":"patroni stopped on the leader""#) else { return false }
            let patroni = try await remote(inventory, before.leader, "systemctl is-active patroni || true")
            return patroni == ["inactive"] || patroni == ["failed"]
        }
        _ = try await remote(inventory, before.leader, "rm \(slowStop) && systemctl daemon-reload")
        #expect(stoppedKill == nil, "the restore ended before it was killed:\n\(stoppedKill ?? "")")
        let abandoned = try await KeelBinary.run(restore + ["--abandon", "--confirm", "lab"])
        #expect(
            abandoned.status == 0 && abandoned.output.contains("restore will abandon the unfinished"),
            "\(abandoned)")
        let resumedAsBefore = try await restoredMembers(cluster)
        #expect(resumedAsBefore.timeline >= before.timeline)
        for host in resumedAsBefore.names {
            let kept = try await remote(
                inventory, host,
                "cd / && runuser -u postgres -- psql -XAtq -d app -c \"SELECT to_regclass('marks') IS NULL, count(*) FROM later\""
            )
            #expect(kept == ["t|1"], "\(host) keeps the data it had: \(kept)")
        }
        let afterAbandon = try await KeelBinary.run(["status", "-i", inventory])
        #expect(afterAbandon.output.contains("was abandoned"), "\(afterAbandon)")

        // Killed (SIGKILL) once the leader's data is restored, then run again: it resumes and finishes.
        let killed = try await deployKilled(after: "restore: data directory restored", on: before.leader, toTarget)
        #expect(killed == nil, "the restore ended before it was killed:\n\(killed ?? "")")
        // Anyone who runs code as postgres (any database superuser) plants a link where the recovery logs, to a
        // file of root's: the resume writes there as postgres, so it stops, and root's file stays as it was.
        let log = "/var/log/postgresql/keel-restore.log"
        _ = try await remote(
            inventory, before.leader,
            "printf 'root only\\n' > /etc/keel-test-victim && rm -f \(log) "
                + "&& cd / && runuser -u postgres -- ln -s /etc/keel-test-victim \(log)")
        let planted = try await KeelBinary.run(toTarget)
        let victim = try await remote(
            inventory, before.leader, "cat /etc/keel-test-victim; stat -c %U /etc/keel-test-victim")
        #expect(planted.status != 0 && planted.output.contains(log), "\(planted)")
        #expect(victim == ["root only", "root"], "root followed postgres's link: \(victim)")
        _ = try await remote(inventory, before.leader, "rm -f \(log) /etc/keel-test-victim")
        let started = ContinuousClock.now
        let resumed = try await KeelBinary.run(toTarget)
        #expect(
            resumed.status == 0 && resumed.output.contains("It was begun: resuming after stopped, restored.")
                && resumed.output.contains("restore will, on cluster lab (database system identifier "),
            "\(resumed)")
        print("restore resumed after the kill in \(ContinuousClock.now - started)")
        let first = try await restoredMembers(cluster, marks: Set(early))
        #expect(first.timeline > before.timeline)
        let events = inventory + ".events"
        let noop = try await KeelBinary.run(toTarget + ["--events", events])
        #expect(noop.status == 0 && noop.output.contains("This restore is finished"), "\(noop)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(noop)")
        // The restore host loses its record (a host replaced since): the restore is still finished, nothing runs.
        _ = try await remote(inventory, first.leader, "rm -f /var/lib/keel/journal/restore")
        let recordLost = try await KeelBinary.run(toTarget + ["--events", events])
        #expect(
            recordLost.status == 0 && recordLost.output.contains("This restore is finished"), "\(recordLost)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(recordLost)")

        // The backup set taken after T, at its consistency point: the table dropped, the later one there.
        let toSet = try await KeelBinary.run(restore + ["--backup-set", laterSet, "--confirm", "lab"])
        #expect(toSet.status == 0, "\(toSet)")
        let third = try await restoredMembers(cluster, marks: nil)
        #expect(third.timeline > first.timeline)
        for host in third.names {
            let tables = try await remote(
                inventory, host,
                "cd / && runuser -u postgres -- psql -XAtq -d app -c \"SELECT to_regclass('marks') IS NULL, count(*) FROM later\""
            )
            #expect(tables == ["t|1"], "\(host) holds the set's data: \(tables)")
        }
        let status = try await KeelBinary.run(["status", "-i", inventory])
        #expect(
            status.status == 0 && status.output.contains("last restore: to backup set \(laterSet)"), "\(status)")
    }

    /// Inserts marker rows one by one through the VIP from `first` on for `seconds`; returns those acknowledged.
    private func writeMarks(_ cluster: LabClusterInventory, on host: String, from first: Int, seconds: Int) async throws
        -> [String]
    {
        let script = """
            export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=2; i=\(first); end=$(( $(date +%s) + \(seconds) ))
            while [ "$(date +%s)" -lt "$end" ]; do
              psql -h 10.213.0.100 -p 5000 -U app -d app -XAtq -c "INSERT INTO marks VALUES ($i)" >/dev/null 2>&1 && echo "$i"
              i=$((i + 1))
            done
            """
        return try await remote(cluster.path, host, "bash -c \(shellQuote(script))")
    }

    private func viaVIP(_ cluster: LabClusterInventory, _ host: String, _ sql: String) async throws -> [String] {
        try await remote(
            cluster.path, host,
            "PGPASSWORD='\(try cluster.secret("user_app"))' psql -h 10.213.0.100 -p 5000 -U app -d app -XAtq -c \(shellQuote(sql))"
        )
    }

    /// Waits until every member streams from one leader on its timeline with no lag; with `marks`, checks that
    /// each member holds exactly those marker rows, that writes go through the VIP and the leader's PgBouncer, and
    /// that the archiver archives without a failure.
    private func restoredMembers(_ cluster: LabClusterInventory, marks: Set<String>? = nil) async throws
        -> (leader: String, timeline: Int, names: [String])
    {
        let inventory = cluster.path
        let count = try await members(inventory, within: 1) { _ in true }.count
        let members = try await members(inventory, within: 120) { members in
            let timelines = Set(members.compactMap { $0["timeline"] as? Int })
            return timelines.count == 1 && members.count == count
                && members.allSatisfy {
                    ["running", "streaming"].contains($0["state"] as? String) && ($0["lag"] as? Int ?? 0) == 0
                }
        }
        let leader = try #require(members.first { $0["role"] as? String == "leader" }?["name"] as? String)
        let timeline = try #require(members.first?["timeline"] as? Int)
        let names = members.compactMap { $0["name"] as? String }.sorted()
        #expect(Set(members.compactMap { $0["timeline"] as? Int }).count == 1, "one timeline: \(members)")
        if let marks {
            for host in names {
                let rows = try await remote(
                    inventory, host, "cd / && runuser -u postgres -- psql -XAtq -d app -c 'SELECT id FROM marks'")
                #expect(
                    Set(rows) == marks,
                    "\(host): \(Set(rows).subtracting(marks).count) marks after T, \(marks.subtracting(rows).count) before it missing"
                )
            }
        }
        let password = try cluster.secret("user_app")
        let leaderAddress = "10.213.0.1\(leader.dropFirst())"
        for (address, port) in [("10.213.0.100", 5000), (leaderAddress, 6432)] {
            let written = try await remote(
                inventory, names.first { $0 != leader } ?? leader,
                "PGPASSWORD='\(password)' psql -h \(address) -p \(port) -U app -d app -XAtq -c 'CREATE TABLE IF NOT EXISTS restored (id int); INSERT INTO restored VALUES (1)' && echo written"
            )
            #expect(written.contains("written"), "a write through \(address):\(port): \(written)")
        }
        let archiver = "cd / && runuser -u postgres -- psql -XAtq -c 'SELECT failed_count FROM pg_stat_archiver'"
        let failedBefore = try await remote(inventory, leader, archiver)
        _ = try await remote(
            inventory, leader,
            "cd / && runuser -u postgres -- psql -XAtq -c 'SELECT pg_switch_wal()' >/dev/null; sleep 3")
        #expect(try await remote(inventory, leader, archiver) == failedBefore, "the archiver fails no segment")
        return (leader, timeline, names)
    }
}
