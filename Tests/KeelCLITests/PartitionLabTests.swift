import Foundation
import KeelTestSupport
import Testing

/// A network partition of the leader on the running Type A cluster, judged by the data: every row a client saw
/// committed is on the final leader, and every member holds the same rows and the same timeline histories.
extension LabTests {
    /// The body of `command`'s output on `host` (without `keel exec`'s header and summary lines).
    func remote(_ inventory: String, _ host: String, _ command: String) async throws -> [String] {
        try await remote(arguments: ["-i", inventory], host, command)
    }

    /// Like ``remote(_:_:_:)`` with the inventory given by `arguments` (`-i` and any `-e`).
    func remote(arguments: [String], _ host: String, _ command: String) async throws -> [String] {
        let result = try await KeelBinary.run(["exec"] + arguments + ["--limit", host, "--", command])
        #expect(result.output.contains("\(host) | ok | exit 0"), "\(command): \(result)")
        return body(of: result.output, on: host)
    }

    /// The body of `command`'s output on `host`, or nil when it failed: for a wait that asks again.
    func remoteIfAnswered(_ inventory: String, _ host: String, _ command: String) async throws -> [String]? {
        let result = try await KeelBinary.run(["exec", "-i", inventory, "--limit", host, "--", command])
        return result.output.contains("\(host) | ok | exit 0") ? body(of: result.output, on: host) : nil
    }

    private func body(of output: String, on host: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("\(host) | ") && !$0.contains(" hosts succeeded")
        }
    }

    /// Starts a writer on `host` that inserts rows one by one into `acked` through the VIP's primary port (`port`:
    /// HAProxy's, or PostgreSQL's where the VIP is on the leader) for `seconds` (or until /tmp/writer.stop exists), recording in /tmp/acked each row it got a clean commit for;
    /// every failed insert goes to /tmp/writer.errors with its error; it touches /tmp/writer.done when it ends.
    func startWriter(_ cluster: LabClusterInventory, on host: String, seconds: Int, port: Int = 5000) async throws {
        let writer = """
            export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=2
            rm -f /tmp/acked /tmp/acked.times /tmp/writer.done /tmp/writer.stop /tmp/writer.errors; i=0; end=$(( $(date +%s) + \(seconds) ))
            while [ "$(date +%s)" -lt "$end" ] && [ ! -f /tmp/writer.stop ]; do
                i=$((i + 1))
                if out=$(timeout 5 psql -h 10.213.0.100 -p \(port) -U app -d app -XAtq -c "INSERT INTO acked VALUES ($i)" 2>&1) && [ -z "$out" ]; then
                    echo "$i" >> /tmp/acked; date +%s%N >> /tmp/acked.times
                else
                    echo "$i $out" >> /tmp/writer.errors
                    sleep 0.2
                fi
            done
            touch /tmp/writer.done
            """
        _ = try await remote(
            cluster.path, host,
            "echo \(Data(writer.utf8).base64EncodedString()) | base64 -d > /tmp/writer.sh; "
                + "setsid nohup bash /tmp/writer.sh >/dev/null 2>&1 </dev/null &")
    }

    /// How many of the rows the writer on `host` got a clean commit for are missing from the primary behind the
    /// VIP's `port`, and how many it got. The read is retried for up to a minute while it fails (PgBouncer
    /// refuses logins for a moment after its PostgreSQL restarted): a failed read is not a row lost, and a read
    /// that never succeeds is an error of its own.
    func acknowledgedRows(
        _ cluster: LabClusterInventory, writtenOn host: String, port: Int = 5000, file: String = "/tmp/acked"
    ) async throws -> (
        missing: Int, acknowledged: Int
    ) {
        // The acknowledged rows are copied before each read: a writer still running acknowledges rows after the
        // SELECT's snapshot, which it rightly does not see.
        let read =
            "export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=5; read=; for i in $(seq 60); do "
            + "cp \(file) /tmp/acked.read; "
            + "if timeout 20 psql -h 10.213.0.100 -p \(port) -U app -d app -XAtq -c 'SELECT id FROM acked' "
            + ">/tmp/present.raw 2>/tmp/present.err; then read=1; break; fi; sleep 1; done; "
            + "[ -n \"$read\" ] || { echo read failed; cat /tmp/present.err; exit 0; }; "
            + "sort /tmp/present.raw > /tmp/present; sort /tmp/acked.read | comm -23 - /tmp/present | wc -l; wc -l < /tmp/acked.read"
        let counts = try await remote(cluster.path, host, read)
        let numbers = counts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        try #require(numbers.count == 2, "the rows behind the VIP could not be read: \(counts)")
        return (numbers[0], numbers[1])
    }

    /// Pulls the leader's cable for longer than Patroni's ttl while a writer on another member inserts rows one
    /// by one through the VIP's primary port and records those it got a clean commit for.
    func partitionKeepsAcknowledgedRows(_ cluster: LabClusterInventory, databaseHosts: [String] = ["h1", "h2", "h3"])
        async throws
    {
        let inventory = cluster.path
        let before = try await members(inventory, within: 60) { streamingReplicas($0).count == 2 }
        let leader = try #require(before.first { $0["role"] as? String == "leader" }?["name"] as? String)
        let writerHost = try #require(databaseHosts.first { $0 != leader })
        _ = try await appSQL(cluster, on: writerHost, "10.213.0.100", 5000, "CREATE TABLE acked (id int PRIMARY KEY)")

        try await startWriter(cluster, on: writerHost, seconds: 90)
        try await Task.sleep(for: .seconds(10))
        try await Lab.run("net-down", leader)
        let cut = ContinuousClock.now
        let cutTime = Int(Date().timeIntervalSince1970)
        // keel status does not take the DCS's word for the member cut off: it names it, says degraded, within 5 s
        // (15 s just after the cut, when etcd may be electing a new leader: no member answers healthy within 3 s,
        // and status asks once more with more time); while the DCS still lists it (within Patroni's ttl) its entry
        // is marked stale, after that it is still named.
        func statusNamesLeader(stale: Bool, within limit: Duration) async throws {
            let start = ContinuousClock.now
            let status = try await KeelBinary.run(["status", "-i", inventory])
            let took = ContinuousClock.now - start
            #expect(
                status.status != 0 && status.output.contains("DEGRADED: ")
                    && status.output.contains("\(leader) does not answer (unreachable"), "\(status)")
            let row = status.output.split(separator: "\n").first { $0.hasPrefix("\(leader) ") }
            #expect(!stale || row?.contains("(STALE: no answer)") == true, "\(status)")
            #expect(took < limit, "keel status took \(took)")
        }
        try await Task.sleep(for: .seconds(2))
        try await statusNamesLeader(stale: true, within: .seconds(15))
        try await Task.sleep(until: cut + .seconds(35))
        try await statusNamesLeader(stale: false, within: .seconds(5))
        try await Task.sleep(until: cut + .seconds(45))
        try await Lab.run("net-up", leader)
        // The new leader has taken writes for a while by now: the writer stops.
        _ = try await remote(inventory, writerHost, "touch /tmp/writer.stop")
        for _ in 0..<60
        where try await remote(inventory, writerHost, "[ -f /tmp/writer.done ] && echo done || true") != ["done"] {
            try await Task.sleep(for: .seconds(1))
        }

        // The old leader rejoins; one leader; the writer saw commits both before and after the partition.
        let after = try await members(inventory, within: 180) { streamingReplicas($0).count == 2 }
        #expect(after.filter { $0["role"] as? String == "leader" }.count == 1, "\(after)")
        #expect(streamingReplicas(after).contains(leader), "the old leader \(leader) rejoins as a replica: \(after)")
        // The lab's hosts share this machine's clock: the commit times split at the cut.
        let split = try await remote(
            inventory, writerHost,
            "awk -v cut=\(cutTime) '{ if ($1 / 1e9 < cut) before++; else after++ } END { print before + 0, after + 0 }' /tmp/acked.times"
        ).first?.split(separator: " ").compactMap { Int($0) }
        #expect(
            (split?.count ?? 0) == 2 && split!.allSatisfy { $0 > 0 },
            "the writer's commits before and after the leader was cut off: \(split ?? [])")

        // Every acknowledged row is on the final leader.
        let rows = try await acknowledgedRows(cluster, writtenOn: writerHost)
        #expect(rows.missing == 0, "acknowledged rows missing on the leader: \(rows.missing) of \(rows.acknowledged)")

        // Every member holds the same rows and agrees on every timeline's history. A member may still be on its
        // way back (a replica that had replayed the old leader's archived WAL past the new timeline's fork is
        // rewound; its PostgreSQL took 60 s to stop, its WAL receiver waiting out wal_receiver_timeout): one that
        // does not answer yet is asked again.
        var fingerprints: [String: String] = [:]
        for _ in 0..<90 {
            for host in databaseHosts {
                fingerprints[host] = try await remoteIfAnswered(
                    inventory, host,
                    "runuser -u postgres -- psql -XAtq -d app -c \"SELECT count(*) || ' ' || md5(string_agg(id::text, ',' ORDER BY id)) FROM acked\""
                )?.first
            }
            if fingerprints.count == databaseHosts.count, Set(fingerprints.values).count == 1 { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(
            fingerprints.count == databaseHosts.count && Set(fingerprints.values).count == 1,
            "members differ or do not answer: \(fingerprints)")
        var histories: [String: Set<String>] = [:]
        for host in databaseHosts {
            let lines = try await remote(
                inventory, host,
                "cd /var/lib/postgresql/15/main/pg_wal && for f in *.history; do [ -f \"$f\" ] && echo \"$f $(md5sum < \"$f\" | cut -c1-32)\"; done; true"
            )
            for line in lines {
                let parts = line.split(separator: " ").map(String.init)
                if parts.count == 2 { histories[parts[0], default: []].insert("\(host):\(parts[1])") }
            }
        }
        for (file, copies) in histories {
            #expect(
                Set(copies.map { $0.split(separator: ":")[1] }).count == 1,
                "timeline history \(file) differs across members: \(copies.sorted())")
        }
    }
}
