import Foundation
import KeelTestSupport
import Testing

/// The balancer steps of the day-2 flows: keepalived converges from the multicast configuration earlier releases
/// wrote, add-balancer brings h7 in, the VIP moves on faults, remove-balancer takes the VIP holder out. Through all
/// of it a sampler on every balancer records every 200 ms whether it holds the VIP.
extension LabTests {
    private static let vip = "10.213.0.100"
    private static let sampler = "keel-test-vip-sampler"

    /// Starts recording, on each of `hosts`, whether it holds the VIP (every 200 ms), and a ping to the VIP from h1
    /// every 200 ms.
    private func startSampling(_ inventory: String, _ hosts: [String]) async throws {
        for host in hosts {
            _ = try await remote(
                inventory, host,
                "systemctl stop \(Self.sampler) 2>/dev/null; systemd-run -q --collect --unit=\(Self.sampler) bash -c "
                    + "'while :; do echo \"$(date +%s.%N) $(ip -4 -br addr | grep -c \" \(Self.vip)/\")\"; sleep 0.2; done > /tmp/vip.samples'"
            )
        }
        _ = try await remote(
            inventory, "h1",
            "systemctl stop \(Self.sampler) 2>/dev/null; systemd-run -q --collect --unit=\(Self.sampler) bash -c "
                + "'ping -D -n -i 0.2 -W 1 \(Self.vip) > /tmp/vip.ping'")
    }

    /// Stops the samplers; returns each host's samples (time, holds) and the number of pings lost.
    private func stopSampling(_ inventory: String, _ hosts: [String]) async throws -> (
        samples: [String: [(Double, Bool)]], lost: Int
    ) {
        var samples: [String: [(Double, Bool)]] = [:]
        for host in hosts {
            samples[host] = try await remote(
                inventory, host, "systemctl stop \(Self.sampler); cat /tmp/vip.samples"
            ).compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count == 2, let time = Double(fields[0]) else { return nil }
                return (time, fields[1] == "1")
            }
        }
        let replies = try await remote(
            inventory, "h1", "systemctl stop \(Self.sampler); grep -o 'icmp_seq=[0-9]*' /tmp/vip.ping | cut -d= -f2"
        ).compactMap { Int($0) }
        let lost = zip(replies, replies.dropFirst()).map { $1 - $0 - 1 }.reduce(0, +)
        return (samples, lost)
    }

    /// Times at which two hosts held the VIP at once: a host sampled holding it between two samples of another
    /// that both held it.
    private func doubleHolds(_ samples: [String: [(Double, Bool)]]) -> [String] {
        var found: [String] = []
        for (host, own) in samples {
            for (other, theirs) in samples where other != host {
                for (first, second) in zip(own, own.dropFirst()) where first.1 && second.1 {
                    if let at = theirs.first(where: { $0.1 && $0.0 > first.0 && $0.0 < second.0 }) {
                        found.append("\(host) and \(other) at \(at.0)")
                    }
                }
            }
        }
        return found
    }

    /// The hosts in the order they took the VIP over (the first is the holder at the start).
    private func holders(_ samples: [String: [(Double, Bool)]]) -> [String] {
        let takeovers = samples.flatMap { host, own in
            zip([(0, false)] + own, own).filter { !$0.1 && $1.1 }.map { ($1.0, host) }
        }
        return takeovers.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The balancer holding the VIP now (exactly one must).
    private func holder(_ inventory: String, among hosts: [String]) async throws -> String {
        var holding: [String] = []
        for host in hosts {
            let held = try await remote(inventory, host, "ip -4 -br addr | grep -c ' \(Self.vip)/' || true")
            if held == ["1"] { holding.append(host) }
        }
        #expect(holding.count == 1, "the VIP is on exactly one balancer: \(holding)")
        return try #require(holding.first)
    }

    /// For a step whose faults may fail a write in flight (the VIP moving, a balancer's HAProxy stopping): the
    /// writer's errors so far move to /tmp/writer.errors.STEP (kept, and counted in the output), and the writer must
    /// commit again within 15 s.
    private func writesResume(_ cluster: LabClusterInventory, _ writerHost: String, after step: String) async throws {
        let file = "/tmp/writer.errors." + step.filter { $0.isLetter }
        let failed = try await remote(
            cluster.path, writerHost,
            "mv /tmp/writer.errors \(file) 2>/dev/null; grep -c '^[0-9]' \(file) 2>/dev/null || true")
        print("writes that failed in flight during \(step): \(failed.first ?? "0")")
        let acked = {
            try await self.remote(cluster.path, writerHost, "wc -l < /tmp/acked").first.flatMap { Int($0) } ?? 0
        }
        let before = try await acked()
        for _ in 0..<15 {
            if try await acked() > before { return }
            try await Task.sleep(for: .seconds(1))
        }
        Issue.record("the writer did not commit again within 15 s after \(step)")
    }

    func balancerFlows(_ cluster: LabClusterInventory, writerHost: String) async throws {
        let inventory = cluster.path
        let events = inventory + ".events"

        // h4 and h5 as Keel's earlier releases configured them: multicast VRRP, equal priorities, preempting.
        for balancer in ["h4", "h5"] {
            _ = try await remote(
                inventory, balancer,
                "sed -i -e '/unicast_src_ip/d' -e '/unicast_peer {/,/^    }/d' -e '/nopreempt/d' "
                    + "-e 's/priority [0-9]*/priority 100/' /etc/keepalived/keepalived.conf && systemctl restart keepalived"
            )
        }
        try await Task.sleep(for: .seconds(5))
        try await startSampling(inventory, ["h4", "h5"])
        let converged = try await KeelBinary.run(["deploy", "-i", inventory, "--tags", "keepalived"])
        #expect(converged.status == 0, "\(converged)")
        try await Task.sleep(for: .seconds(3))
        let conversion = try await stopSampling(inventory, ["h4", "h5"])
        #expect(doubleHolds(conversion.samples).isEmpty, "never on two hosts: \(doubleHolds(conversion.samples))")
        #expect(holders(conversion.samples).count <= 2, "moved at most once: \(holders(conversion.samples))")
        for (balancer, priority) in [("h4", 200), ("h5", 199)] {
            let config = try await remote(
                inventory, balancer,
                "grep -v '^ *#' /etc/keepalived/keepalived.conf | grep -c -e unicast_peer -e 'priority \(priority)$' -e nopreempt"
            )
            #expect(config == ["3"], "\(balancer) runs unicast with priority \(priority): \(config)")
        }
        // Converting, the VIP holder leaves the VIP for a few seconds (keepalived re-elects on such a reload).
        try await writesResume(cluster, writerHost, after: "keepalived's conversion to unicast")

        // add-balancer under the writer: the VIP never on two hosts, at most one ping lost.
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(
                of: "[balancers]\nh4 ansible_host=10.213.0.14\nh5 ansible_host=10.213.0.15\n",
                with:
                    "[balancers]\nh4 ansible_host=10.213.0.14\nh5 ansible_host=10.213.0.15\nh7 ansible_host=10.213.0.17 new_node=true\n"
            )
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        try await startSampling(inventory, ["h4", "h5", "h7"])
        let start = ContinuousClock.now
        let added = try await KeelBinary.run(["add-balancer", "-i", inventory])
        let took = ContinuousClock.now - start
        #expect(added.status == 0, "\(added)")
        let adding = try await stopSampling(inventory, ["h4", "h5", "h7"])
        #expect(doubleHolds(adding.samples).isEmpty, "never on two hosts: \(doubleHolds(adding.samples))")
        #expect(adding.lost <= 1, "pings lost during add-balancer: \(adding.lost)")
        try await writerClean(cluster, writerHost, after: "add-balancer")
        let again = try await KeelBinary.run(["add-balancer", "-i", inventory, "--events", events])
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedSteps.isEmpty, "add-balancer's re-run: \(again)")
        print("add-balancer: \(took)")

        // Faults on the holder move the VIP within 3 × advert_int (3 s): HAProxy stopped, then keepalived killed.
        let balancers = ["h4", "h5", "h7"]
        for fault in ["systemctl stop haproxy", "pkill -x keepalived"] {
            let holder = try await holder(inventory, among: balancers)
            try await startSampling(inventory, balancers)
            let at = try await remote(inventory, holder, "date +%s.%N; \(fault)").compactMap(Double.init).first ?? 0
            try await Task.sleep(for: .seconds(5))
            let moved = try await stopSampling(inventory, balancers)
            let takeover = balancers.filter { $0 != holder }.compactMap { moved.samples[$0]?.first { $0.1 }?.0 }.min()
            #expect(
                takeover.map { $0 - at <= 3.2 } == true,
                "after `\(fault)` on \(holder) another balancer holds the VIP within 3 s: \(takeover.map { $0 - at } ?? -1)"
            )
            #expect(doubleHolds(moved.samples).isEmpty, "never on two hosts: \(doubleHolds(moved.samples))")
            _ = try await remote(inventory, holder, "systemctl start haproxy keepalived")
        }
        try await writesResume(cluster, writerHost, after: "the balancer faults")

        // keepalived killed with SIGKILL on the holder cannot take its VIP off itself: its unit does (and starts it
        // again within 10 s), while the VIP moves; sampled for a minute, it is never on two hosts.
        let killed = try await holder(inventory, among: balancers)
        try await startSampling(inventory, balancers)
        _ = try await remote(inventory, killed, "pkill -KILL -x keepalived")
        var restarted = false
        for _ in 0..<20 where !restarted {
            try await Task.sleep(for: .milliseconds(500))
            restarted = try await remote(inventory, killed, "systemctl is-active keepalived || true") == ["active"]
        }
        #expect(restarted, "keepalived runs again on \(killed) within 10 s of its kill")
        try await Task.sleep(for: .seconds(60))
        let afterKill = try await stopSampling(inventory, balancers)
        #expect(doubleHolds(afterKill.samples).isEmpty, "never on two hosts: \(doubleHolds(afterKill.samples))")
        #expect(
            afterKill.samples.values.map { $0.count }.min() ?? 0 >= 250, "a minute of samples on every balancer")
        #expect(try await holder(inventory, among: balancers) != killed, "the VIP moved off \(killed) and stays away")
        try await writesResume(cluster, writerHost, after: "keepalived's kill")

        // The new balancer can hold the VIP: with h7 holding it, writes reach the leader and reads a replica.
        for other in ["h4", "h5"] {
            _ = try await remote(inventory, other, "systemctl stop keepalived; sleep 2")
        }
        #expect(try await holder(inventory, among: balancers) == "h7", "h7 took the VIP over")
        _ = try await remote(inventory, "h4", "systemctl start keepalived")
        _ = try await remote(inventory, "h5", "systemctl start keepalived")
        try await writesResume(cluster, writerHost, after: "the VIP's moves to h7")
        let primary = try await appSQL(cluster, "10.213.0.100", 5000, "SELECT pg_is_in_recovery()")
        let replica = try await appSQL(cluster, "10.213.0.100", 5001, "SELECT pg_is_in_recovery()")
        #expect(primary.contains("\nf\n") && replica.contains("\nt\n"), "through h7: \(primary) / \(replica)")

        // remove-balancer of the holder under the writer: the VIP moves once, away from it for good.
        try await startSampling(inventory, balancers)
        let removed = try await KeelBinary.run(["remove-balancer", "-i", inventory, "--yes", "h7", "h7"])
        #expect(removed.status == 0, "\(removed)")
        try await Task.sleep(for: .seconds(2))
        let removing = try await stopSampling(inventory, balancers)
        #expect(doubleHolds(removing.samples).isEmpty, "never on two hosts: \(doubleHolds(removing.samples))")
        #expect(holders(removing.samples).count == 2, "moved once: \(holders(removing.samples))")
        #expect(removing.samples["h7"]?.last?.1 == false, "h7 holds no VIP")
        for balancer in ["h4", "h5"] {
            let peers = try await remote(
                inventory, balancer, "grep -c 10.213.0.17 /etc/keepalived/keepalived.conf || true")
            #expect(peers == ["0"], "h7 is no peer of \(balancer): \(peers)")
        }
        try await writesResume(cluster, writerHost, after: "remove-balancer")
        let removedAgain = try await KeelBinary.run([
            "remove-balancer", "-i", inventory, "--yes", "h7", "h7", "--events", events,
        ])
        #expect(removedAgain.status == 0, "\(removedAgain)")
        #expect(try EventStream(path: events).changedSteps.isEmpty, "remove-balancer's re-run: \(removedAgain)")
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(of: "h7 ansible_host=10.213.0.17 new_node=true\n", with: "")
            .write(toFile: inventory, atomically: true, encoding: .utf8)
    }
}
