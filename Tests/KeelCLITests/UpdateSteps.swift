import Foundation
import KeelTestSupport
import Testing

/// `keel update` on a running cluster under the writer on `writerHost`: deployed on the older releases Debian 12
/// carries (PostgreSQL 15.18 and HAProxy 2.6.12-1+deb12u3, held by an apt pin from the start), then the newer
/// ones (15.20 and +deb12u4, from bookworm-security) let through. The update is killed once the first replica's
/// packages changed (its Patroni still stopped), run again to the end, then once more to find nothing to do.
/// A reader through VIP:5001 counts its errors. The caller checks the writer's rows afterwards.
extension LabTests {
    static let olderReleasesPin = "/etc/apt/preferences.d/keel-lab-older"

    /// Holds the older releases on every host, before the first deploy.
    func holdOlderReleases(_ cluster: LabClusterInventory) async throws {
        let pin = """
            Package: postgresql-15 postgresql-client-15 libpq5
            Pin: version 15.18-0+deb12u1
            Pin-Priority: 1001

            Package: haproxy
            Pin: version 2.6.12-1+deb12u3
            Pin-Priority: 1001
            """
        let held = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--",
            "echo \(Data(pin.utf8).base64EncodedString()) | base64 -d > \(Self.olderReleasesPin)",
        ])
        #expect(held.status == 0, "\(held)")
    }

    func updates(_ cluster: LabClusterInventory, writerHost: String) async throws {
        let inventory = cluster.path
        let update = ["update", "-i", inventory]
        let versions =
            "dpkg-query -W -f '${Package} ${Version}\\n' postgresql-15 haproxy 2>/dev/null | sort | tr '\\n' ' '"
        let before = try await KeelBinary.run(["exec", "-i", inventory, "--", versions])
        #expect(
            before.output.components(separatedBy: "postgresql-15 15.18-0+deb12u1").count - 1 == 3
                && before.output.components(separatedBy: "haproxy 2.6.12-1+deb12u3").count - 1 == 2,
            "deployed on the older releases: \(before)")
        let leaderBefore = try await members(inventory, within: 60) { _ in true }
        let first = try #require(leaderBefore.first { $0["role"] as? String == "leader" })
        let (leader, timeline) = (first["name"] as? String ?? "", first["timeline"] as? Int ?? 0)
        let firstReplica = try #require(["h1", "h2", "h3"].first { $0 != leader })

        // Nothing newer yet: nothing to do.
        let current = try await KeelBinary.run(update + ["--check"])
        #expect(current.status == 0 && current.output.contains("is current, nothing to do"), "\(current)")

        // The newer releases appear; the plan lists them per host, from → to.
        _ = try await KeelBinary.run(["exec", "-i", inventory, "--", "rm -f \(Self.olderReleasesPin)"])
        try await startReader(cluster, on: "h3")
        let checked = try await KeelBinary.run(update + ["--check"])
        #expect(
            checked.status == 2
                && checked.output.contains("\(firstReplica): postgresql-15 15.18-0+deb12u1 → 15.20-0+deb12u1")
                && checked.output.contains("h4: haproxy 2.6.12-1+deb12u3 → 2.6.12-1+deb12u4")
                && checked.output.contains("hand the leader's role from \(leader) to an updated replica"),
            "\(checked)")

        // Killed once the first replica has its new packages, its Patroni not started yet; run again to the end.
        let killedSteps = inventory + ".update-killed-timeline"
        let unkilled = try await deployKilled(
            after: "packages updated", on: firstReplica, update, events: killedSteps)
        #expect(unkilled == nil, "the update ended before \(firstReplica)'s packages changed:\n\(unkilled ?? "")")
        let started = ContinuousClock.now
        let startedOnWriter = try #require(try await remote(inventory, writerHost, "date +%s%N").first)
        let stepTimes = inventory + ".update-timeline"
        let finished = try await KeelBinary.run(update + ["--events", stepTimes])
        let endedOnWriter = try #require(try await remote(inventory, writerHost, "sleep 3; date +%s%N").first)
        let gap = try await longestWait(inventory, writerHost: writerHost, from: startedOnWriter, to: endedOnWriter)
        print("update after the kill: \(ContinuousClock.now - started); the writer's longest wait \(gap) s")
        #expect(gap < 15, "the write gap: \(gap) s")
        #expect(finished.status == 0, "\(finished)")
        #expect(
            finished.output.contains("\(firstReplica): bring it back into service"), "resumed: \(finished)")

        let after = try await KeelBinary.run(["exec", "-i", inventory, "--", versions])
        #expect(
            after.output.components(separatedBy: "postgresql-15 15.20-0+deb12u1").count - 1 == 3
                && after.output.components(separatedBy: "haproxy 2.6.12-1+deb12u4").count - 1 == 2,
            "updated: \(after)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(inventory, host, "SELECT version()")
            #expect(running.output.contains("PostgreSQL 15.20"), "\(host) runs 15.20: \(running.output)")
        }
        let settled = try await members(inventory, within: 90) { streamingReplicas($0).count == 2 }
        let leaderAfter = try #require(settled.first { $0["role"] as? String == "leader" })
        #expect(
            leaderAfter["name"] as? String != leader && leaderAfter["timeline"] as? Int == timeline + 1,
            "the leader changed exactly once: \(leader) on \(timeline) before, \(leaderAfter) after")
        let events = inventory + ".update-events"
        let again = try await KeelBinary.run(update + ["--events", events])
        #expect(again.status == 0 && again.output.contains("is current, nothing to do"), "\(again)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(again)")

        let reads = try await stopReader(cluster, on: "h3")
        print("the reader through VIP:5001 during the update: \(reads.errors) errors in \(reads.reads) reads")
        try await printBeside(
            try await remote(inventory, "h3", "cat /tmp/reader.errors"), steps: [killedSteps, stepTimes])
    }

    /// Starts a reader on `host` through VIP:5001 (the replicas), a `SELECT 1` every 0.2 s, each failure recorded
    /// with its time in /tmp/reader.errors.
    func startReader(_ cluster: LabClusterInventory, on host: String) async throws {
        let reader = """
            export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=2
            rm -f /tmp/reader.errors /tmp/reader.stop; touch /tmp/reader.errors; n=0
            while [ ! -f /tmp/reader.stop ]; do
                n=$((n + 1)); echo "$n" > /tmp/reader.count
                out=$(timeout 5 psql -h 10.213.0.100 -p 5001 -U app -d app -XAtq -c 'SELECT 1' 2>&1)
                [ "$out" = 1 ] || echo "$(date +%T) $out" >> /tmp/reader.errors
                sleep 0.2
            done
            """
        _ = try await remote(
            cluster.path, host,
            "echo \(Data(reader.utf8).base64EncodedString()) | base64 -d > /tmp/reader.sh; "
                + "setsid nohup bash /tmp/reader.sh >/dev/null 2>&1 </dev/null &")
    }

    /// Stops the reader on `host`: how many of its reads failed, of how many.
    func stopReader(_ cluster: LabClusterInventory, on host: String) async throws -> (errors: Int, reads: Int) {
        let counts = try await remote(
            cluster.path, host,
            "touch /tmp/reader.stop; sleep 1; echo $(grep -c '^[0-9][0-9]:' /tmp/reader.errors) $(cat /tmp/reader.count)"
        )
        let numbers = counts.first?.split(separator: " ").compactMap { Int($0) } ?? []
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (-1, -1)
    }

    /// Prints each of the reader's `errors` ("HH:MM:SS message") with the update's steps that ended within 5 s of
    /// it (from the runs' `--events` files: the killed one's and the rerun's), to tell what took the reader's
    /// service away.
    private func printBeside(_ errors: [String], steps files: [String]) async throws {
        func seconds(_ time: Substring) -> Int? {
            let parts = time.split(separator: ":").compactMap { Int($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
        }
        let steps = try files.flatMap { try EventStream(path: $0).events }.compactMap { event -> (Int, String)? in
            guard event["event"] as? String == "step", let time = event["time"] as? String,
                let clock = time.split(separator: "T").last?.prefix(8), let at = seconds(clock)
            else { return nil }
            return (at, "\(clock) \(event["host"] ?? "") \(event["step"] ?? "") (\(event["seconds"] ?? "?") s)")
        }
        for error in errors where !error.isEmpty {
            print("reader error: \(error)")
            guard let at = seconds(error.prefix(8)) else { continue }
            for (time, step) in steps where abs(time - at) <= 5 { print("    beside: \(step)") }
        }
    }
}
