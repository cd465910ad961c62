import Foundation
import Keel
import KeelTestSupport
import Testing

/// `keel switchover` on a running cluster under the writer on `writerHost` (through VIP:5000): refused cases
/// change nothing; the leader moves to the named synchronous standby, the writer's gap is measured, a rerun does
/// nothing, and a second switchover (to whichever member is the synchronous standby then) works too. The caller
/// checks the writer's rows afterwards.
extension LabTests {
    func switchovers(_ lab: LabClusterInventory, writerHost: String) async throws {
        let inventory = lab.path
        let switchover = ["switchover", "-i", inventory]
        func settled() async throws -> (leader: String, sync: String, other: String) {
            let members = try await members(inventory, within: 90) { members in
                streamingReplicas(members).count == 2 && members.contains { $0["role"] as? String == "sync_standby" }
            }
            let named = { (role: String) in members.first { $0["role"] as? String == role }?["name"] as? String }
            let leader = try #require(named("leader"), "\(members)")
            let sync = try #require(named("sync_standby"), "\(members)")
            let other = try #require(streamingReplicas(members).first { $0 != sync }, "\(members)")
            return (leader, sync, other)
        }
        let first = try await settled()
        let api = "\(Self.patroniCurl) -sf -m 5 -K /etc/keel/patroni-api.curlrc"
        let config = "https://\(address(first.leader)):8008/config"

        // Refused, nothing changed: a non-member, a replica that is not the synchronous standby, a paused cluster,
        // a stopped candidate.
        for (arguments, reason) in [
            (["--to", "h9"], "h9 is not a member of the cluster"),
            (["--to", first.other], "\(first.other) cannot take over: it is not the synchronous standby"),
        ] {
            let refused = try await KeelBinary.run(switchover + arguments)
            #expect(refused.status != 0 && refused.output.contains(reason), "\(arguments): \(refused)")
        }
        let cluster = "https://\(address(first.leader)):8008/cluster"
        // Paused once /cluster says so (Patroni reads its configuration back from etcd).
        _ = try await remote(
            inventory, first.leader,
            "\(api) -X PATCH -d '{\"pause\": true}' \(config) >/dev/null; for i in $(seq 30); do "
                + "\(api) \(cluster) | grep -q '\"pause\": true' && break; sleep 1; done")
        let paused = try await KeelBinary.run(switchover + ["--to", first.sync])
        #expect(
            paused.status != 0 && paused.output.contains("Patroni is paused (maintenance mode)"), "\(paused)")
        _ = try await remote(
            inventory, first.leader,
            "\(api) -X PATCH -d '{\"pause\": false}' \(config) >/dev/null; for i in $(seq 30); do "
                + "\(api) \(cluster) | grep -q '\"pause\": true' || break; sleep 1; done")
        _ = try await remote(inventory, first.other, "systemctl stop patroni")
        let stopped = try await KeelBinary.run(switchover + ["--to", first.other])
        #expect(stopped.status != 0 && stopped.output.contains("the cluster is not healthy"), "\(stopped)")
        _ = try await remote(inventory, first.other, "systemctl start patroni")
        _ = try await settled()
        // A lagging candidate: its WAL receiver frozen (still "streaming" to Patroni) while the leader moves on a
        // segment, until Patroni lists it beyond maximum_lag_on_failover (1 MiB).
        // (A pattern its own command line does not match: the shell running it must not stop itself.)
        let receiver = "$(pgrep -f 'postgres: [-_.0-9a-zA-Z/]*: walreceiver')"
        _ = try await remote(inventory, first.other, "kill -STOP \(receiver)")
        let lagCheck = """
            import json, sys
            lag = [m.get("lag") for m in json.load(sys.stdin)["members"] if m["name"] == sys.argv[1]]
            sys.exit(0 if lag and isinstance(lag[0], int) and lag[0] > 1048576 else 1)
            """
        _ = try await remote(
            inventory, first.leader,
            "runuser -u postgres -- psql -XAtq -c 'SELECT pg_switch_wal()' >/dev/null; for i in $(seq 40); do "
                + "\(api) \(cluster) | python3 -c \(shellQuote(lagCheck)) \(first.other) && break; sleep 1; done")
        let lagging = try await KeelBinary.run(switchover + ["--to", first.other])
        _ = try await remote(inventory, first.other, "kill -CONT \(receiver)")
        #expect(
            lagging.status != 0 && lagging.output.contains("\(first.other) cannot take over: it lags"),
            "\(lagging)")
        let unchanged = try await settled()
        #expect(unchanged.leader == first.leader, "refused switchovers change nothing")
        let checked = try await KeelBinary.run(switchover + ["--check"])
        // Under --check, exit 2: a change is pending.
        #expect(
            checked.status == 2 && checked.output.contains("hand the leader's role to \(unchanged.sync)"),
            "\(checked)")
        #expect(try await settled().leader == first.leader, "a checked switchover changes nothing")

        // The switchover, timed from the writer's side: its longest wait between two acknowledged rows; and a
        // reader through the VIP's read port, every read served while the leader's role moves (the refused cases
        // above stop a replica abruptly, which a reader may notice: it starts here).
        try await startReader(lab, on: "h1")
        let started = try #require(try await remote(inventory, writerHost, "date +%s%N").first)
        let moved = try await KeelBinary.run(switchover + ["--to", unchanged.sync])
        let ended = try #require(try await remote(inventory, writerHost, "sleep 5; date +%s%N").first)
        #expect(moved.status == 0, "\(moved)")
        // Keel tells how long after its request the new leader took writes.
        let told = moved.output.split(separator: "\n").first { $0.contains("\(unchanged.sync) took writes ") }
        #expect(told != nil, "\(moved)")
        let gap = try await longestWait(inventory, writerHost: writerHost, from: started, to: ended)
        print(
            "switchover \(first.leader) → \(unchanged.sync): the writer's longest wait \(gap) s; keel: \(told ?? "")")
        #expect(gap < 15, "the write gap: \(gap) s")
        let second = try await settled()
        #expect(second.leader == unchanged.sync, "the named member leads: \(second)")
        let again = try await KeelBinary.run(switchover + ["--to", unchanged.sync])
        #expect(again.status == 0 && again.output.contains("leads already, nothing to do"), "\(again)")

        // Once more, to the synchronous standby of the moment (no --to).
        let back = try await KeelBinary.run(switchover)
        #expect(back.status == 0 && back.output.contains("hand the leader's role to \(second.sync)"), "\(back)")
        let third = try await settled()
        #expect(third.leader == second.sync, "\(third)")
        let reads = try await stopReader(lab, on: "h1")
        print("the reader through VIP:5001 during the switchovers: \(reads.errors) errors in \(reads.reads) reads")
        #expect(reads.errors == 0 && reads.reads > 0, "reads failed during the switchovers: \(reads)")
    }

    /// The longest wait, in seconds, between two rows the writer on `writerHost` got acknowledged from `start` to
    /// `end` (its clock's `date +%s%N`), read from its `times` file.
    func longestWait(
        _ inventory: String, writerHost: String, from start: String, to end: String,
        times: String = "/tmp/acked.times"
    ) async throws -> Double {
        let gap = try await remote(
            inventory, writerHost,
            "awk -v a=\(start) -v b=\(end) 'p && $1 >= a && p <= b { d = $1 - p; if (d > m) m = d } "
                + "{ p = $1 } END { printf \"%.2f\\n\", m / 1e9 }' \(times)")
        return Double(gap.first ?? "") ?? .infinity
    }

    /// The lab address of host `hN`.
    private func address(_ host: String) -> String { "10.213.0.1" + host.dropFirst() }
}
