import Foundation
import KeelTestSupport
import Testing

/// A deploy, failover and partition, then the day-2 flows in sequence on that one cluster (Type A: h1..h3 with
/// etcd, balancers h4 and h5; h6 joins as a member, h7 as a balancer), each under write load through the VIP with
/// every acknowledged row accounted for. One cluster for all of it keeps the suite within its time.
extension LabTests {
    @Test(
        "deploy (HAProxy + VIP + PgBouncer) on fresh hosts: leader, streaming replicas, data through the VIP, a full backup; the second deploy changes nothing; failover and rejoin; a partition loses no acknowledged row; then day-2 flows on that running cluster under write load: add-node (killed inside dpkg on the new member without and with sessions kept: dpkg ends whole, a restore meanwhile refuses the half-added member with nothing stopped, keel status names it; planned with --check, refused with a wrong replication password, then a 4th member streaming and serving reads, 0 writer errors, 0 changed on the re-run); etcd grown 3 → 4 → 5 and back with the leader unchanged; remove-node of a replica (no backend, pg_hba line, slot or DCS key left); keepalived converged from multicast, add-balancer and remove-balancer with the VIP never on two hosts; point-in-time restores (refused before anything stops, killed and abandoned, killed and resumed, to a backup set) leave every member with exactly the rows of the target; remove-cluster refused without the name, then everything gone but the backups and a neighbour's etcd keys; the same inventory refused (its stanza holds them); with the neighbour gone, etcd removed too (killed midway and rerun); autobase 2.5.2's own inventory and roles/common.yml with one override file deploy a new cluster there (shared_buffers a quarter of each host's memory from its local_postgresql_parameters; 0 changed on the re-run), archiving under a new stanza; removed with its backups",
        .lab(hosts: 7, fresh: true)
    )
    func deployThenDayTwo() async throws {
        let cluster = try LabClusterInventory()
        var clock = ContinuousClock.now
        /// Prints how long the phase ending now took, for the suite's time budget.
        func phase(_ name: String) {
            print("day-2 phase \(name): \(ContinuousClock.now - clock)")
            clock = .now
        }
        try await deployAndFailOver(cluster)
        phase("deploy, failover and partition")
        let before = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        let leader = try #require(before.first { $0["role"] as? String == "leader" }?["name"] as? String)
        let writerHost = try #require(["h2", "h3"].first { $0 != leader })
        // The partition's writer left its rows: the day-2 writer counts from 1 again.
        _ = try await appSQL(
            cluster, on: writerHost, "10.213.0.100", 5000,
            "DROP TABLE IF EXISTS acked; CREATE TABLE acked (id int PRIMARY KEY)")
        try await startWriter(cluster, on: writerHost, seconds: 3600)

        try await addNode(cluster, leader: leader, writerHost: writerHost)
        phase("add-node")
        try await growEtcd(cluster)
        phase("etcd grown")
        try await removeNode(cluster, leader: leader, writerHost: writerHost)
        phase("remove-node")
        try await shrinkEtcd(cluster)
        phase("etcd shrunk")
        try await balancerFlows(cluster, writerHost: writerHost)
        phase("balancers")

        _ = try await remote(cluster.path, writerHost, "touch /tmp/writer.stop")
        try await writerClean(cluster, writerHost, after: "the day-2 flows")
        let settled = try await members(cluster.path, within: 60) { members in
            members.count == 4 && members.allSatisfy { ($0["lag"] as? Int ?? 0) == 0 }
        }
        #expect(settled.allSatisfy { ($0["lag"] as? Int ?? 0) == 0 }, "every member caught up: \(settled)")
        let acked = Set(try await remote(cluster.path, writerHost, "cat /tmp/acked"))
        let leaderNow = try #require(settled.first { $0["role"] as? String == "leader" }?["name"] as? String)
        let stored = Set(
            try await remote(
                cluster.path, leaderNow, "runuser -u postgres -- psql -XAtq -d app -c 'SELECT id FROM acked'"))
        #expect(
            acked.subtracting(stored).isEmpty,
            "acknowledged rows lost: \(acked.subtracting(stored).count) of \(acked.count)")
        try await restoreFlows(cluster, writerHost: writerHost)
        phase("restores")
        try await removalFlows(cluster)
        phase("removals and the reference's files")
    }

    /// Fails the test when the writer has seen an error so far, naming the step.
    func writerClean(_ cluster: LabClusterInventory, _ writerHost: String, after step: String) async throws {
        let errors = try await remote(cluster.path, writerHost, "cat /tmp/writer.errors 2>/dev/null || true")
        #expect(errors.isEmpty, "the writer saw errors during \(step): \(errors)")
    }

    private func addNode(_ cluster: LabClusterInventory, leader: String, writerHost: String) async throws {
        let inventory = cluster.path
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(
                of: "[replica]\nh2 ansible_host=10.213.0.12\nh3 ansible_host=10.213.0.13\n",
                with:
                    "[replica]\nh2 ansible_host=10.213.0.12\nh3 ansible_host=10.213.0.13\nh6 ansible_host=10.213.0.16 new_node=true\n"
            )
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        // Killed inside dpkg twice: a restore meanwhile refuses the half-added member, and the runs below converge.
        try await addNodeKilledInDpkg(cluster, writerHost: writerHost)
        // The plan: the new member, pg_hba on the running members, HAProxy's backends on both balancers.
        let events = inventory + ".events"
        let check = try await KeelBinary.run(["add-node", "-i", inventory, "--check", "--events", events])
        #expect(check.status == 2, "\(check)")
        let planned = try EventStream(path: events).changedSteps
        for expected in [
            "h1: template /etc/patroni/patroni.yml", "h2: template /etc/patroni/patroni.yml",
            "h3: template /etc/patroni/patroni.yml", "h4: template /etc/haproxy/haproxy.cfg",
            "h5: template /etc/haproxy/haproxy.cfg", "h6: template /etc/patroni/patroni.yml",
        ] {
            #expect(planned.contains(expected), "\(expected) planned: \(planned)")
        }

        // A replication password that is not the running cluster's stops the run before the new Patroni starts.
        try (variables + "\npatroni_replication_password: \"not-the-cluster-password\"\n").write(
            toFile: variablesPath, atomically: true, encoding: .utf8)
        let wrong = try await KeelBinary.run(["add-node", "-i", inventory])
        #expect(wrong.status != 0, "\(wrong)")
        #expect(
            wrong.output.contains("h6 cannot log in for replication as replicator")
                && wrong.output.contains("check patroni_replication_password"), "\(wrong)")
        let stopped = try await remote(inventory, "h6", "systemctl is-active patroni || true")
        #expect(stopped == ["inactive"], "the new member's Patroni did not start: \(stopped)")
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)

        let start = ContinuousClock.now
        let added = try await KeelBinary.run(["add-node", "-i", inventory, "--events", events])
        let took = ContinuousClock.now - start
        #expect(added.status == 0, "\(added)")
        let restarts = added.output.split(separator: "\n").filter {
            ["h1 |", "h2 |", "h3 |"].contains(where: $0.trimmingCharacters(in: .whitespaces).hasPrefix)
                && $0.contains("restart")
        }
        #expect(restarts.isEmpty, "no running member restarts: \(restarts)")
        let noopStart = ContinuousClock.now
        let again = try await KeelBinary.run(["add-node", "-i", inventory, "--events", events])
        let noopTook = ContinuousClock.now - noopStart
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(again)")
        print("add-node: \(took); its no-op re-run: \(noopTook)")

        // Reads through the VIP's replica port reach every replica, the new one too.
        let password = try cluster.secret("user_app")
        let servers = try await remote(
            inventory, "h1",
            "for i in $(seq 200); do PGPASSWORD='\(password)' psql -h 10.213.0.100 -p 5001 -U app -d app -XAtqc \"SELECT split_part(current_setting('listen_addresses'), ',', 1)\"; done | sort | uniq -c | awk '{print $2}'"
        )
        let replicas = ["h1", "h2", "h3", "h6"].filter { $0 != leader }.map { "10.213.0.1\($0.dropFirst())" }
        #expect(
            Set(servers) == Set(replicas),
            "servers seen through 5001: \(servers)")

        // The writer never failed; every row it had acknowledged is on the new member, which streams caught up.
        try await writerClean(cluster, writerHost, after: "add-node")
        // On the leader's timeline, within a failover's reach while the writer goes on (lag 0 is checked once it
        // stops); every row acknowledged so far reaches it.
        let after = try await members(inventory, within: 60) { members in
            members.contains {
                $0["name"] as? String == "h6" && $0["state"] as? String == "streaming"
                    && ($0["lag"] as? Int).map { $0 <= 1_048_576 } == true
            }
        }
        let newMember = after.first { $0["name"] as? String == "h6" }
        let leaderTimeline = after.first { $0["role"] as? String == "leader" }?["timeline"] as? Int
        #expect(
            newMember?["state"] as? String == "streaming" && newMember?["timeline"] as? Int == leaderTimeline,
            "h6 streams on the leader's timeline: \(after)")
        let acked = Set(try await remote(inventory, writerHost, "cat /tmp/acked"))
        #expect(acked.count > 50, "the writer got commits: \(acked.count)")
        var missing = acked
        for _ in 0..<30 {
            let present = try await remote(
                inventory, "h6", "runuser -u postgres -- psql -XAtq -d app -c 'SELECT id FROM acked'")
            missing = acked.subtracting(present)
            if missing.isEmpty { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(missing.isEmpty, "acknowledged rows missing on h6: \(missing.count)")
        let leftovers = try await sql(inventory, leader, "SELECT count(*) FROM pg_replication_slots WHERE NOT active")
        #expect(leftovers.output.contains("\n0\n"), "no inactive slot: \(leftovers.output)")
    }

    /// Two more etcd members, one add-node run each (3 → 4 → 5): healthy after each, the Patroni leader unchanged.
    private func growEtcd(_ cluster: LabClusterInventory) async throws {
        let inventory = cluster.path
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(
                of:
                    "[etcd_cluster]\nh1 ansible_host=10.213.0.11\nh2 ansible_host=10.213.0.12\nh3 ansible_host=10.213.0.13\n",
                with:
                    "[etcd_cluster]\nh1 ansible_host=10.213.0.11\nh2 ansible_host=10.213.0.12\nh3 ansible_host=10.213.0.13\nh4 ansible_host=10.213.0.14\nh5 ansible_host=10.213.0.15\n"
            )
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        let leaderBefore =
            try await members(inventory, within: 30) { _ in true }
            .first { $0["role"] as? String == "leader" }?["name"] as? String
        for (host, size) in [("h4", 4), ("h5", 5)] {
            let grown = try await KeelBinary.run(["add-node", "-i", inventory, host])
            #expect(grown.status == 0, "\(grown)")
            let health = try await remote(
                inventory, "h1",
                "ETCDCTL_API=3 etcdctl --endpoints=https://10.213.0.11:2379 --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key member list | wc -l; "
                    + "ETCDCTL_API=3 etcdctl --endpoints=\((1...size).map { "https://10.213.0.1\($0):2379" }.joined(separator: ",")) --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key endpoint health 2>&1 | grep -c 'is healthy'"
            )
            #expect(
                health == ["\(size)", "\(size)"], "etcd has \(size) healthy members after adding \(host): \(health)")
            let leader =
                try await members(inventory, within: 30) { _ in true }
                .first { $0["role"] as? String == "leader" }?["name"] as? String
            #expect(leader == leaderBefore, "the Patroni leader stays \(leaderBefore ?? "?"): now \(leader ?? "none")")
        }
        let status = try await KeelBinary.run(["status", "-i", inventory])
        #expect(status.status == 0 && status.output.contains("etcd: 5 of 5 members healthy"), "\(status)")
    }

    /// remove-node refuses the leader and an unconfirmed run; removes a replica under the writer (HAProxy, pg_hba,
    /// slot and DCS key gone, 0 changed on a second run); the same host is added again.
    private func removeNode(_ cluster: LabClusterInventory, leader: String, writerHost: String) async throws {
        let inventory = cluster.path
        let events = inventory + ".events"
        let refused = try await KeelBinary.run([
            "remove-node", "-i", inventory, "--yes", leader, leader, "--events", events,
        ])
        #expect(refused.status != 0 && refused.output.contains("switch over"), "\(refused)")
        let unconfirmed = try await KeelBinary.run(["remove-node", "-i", inventory, "h6"])
        #expect(unconfirmed.status != 0 && unconfirmed.output.contains("needs a confirmation"), "\(unconfirmed)")
        let streaming = try await remote(inventory, "h6", "systemctl is-active patroni || true")
        #expect(streaming == ["active"], "nothing changed without a confirmation: \(streaming)")

        let removed = try await KeelBinary.run(["remove-node", "-i", inventory, "--yes", "h6", "h6"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.output.contains("keep its data directory"), "the plan is shown: \(removed)")
        try await writerClean(cluster, writerHost, after: "remove-node")
        for balancer in ["h4", "h5"] {
            let backends = try await remote(inventory, balancer, "grep -c 10.213.0.16 /etc/haproxy/haproxy.cfg || true")
            #expect(backends == ["0"], "no HAProxy backend for h6 on \(balancer): \(backends)")
        }
        let hba = try await sql(
            inventory, leader, "SELECT count(*) FROM pg_hba_file_rules WHERE address = '10.213.0.16'")
        #expect(hba.output.contains("\n0\n"), "no pg_hba line for h6: \(hba.output)")
        for member in ["h1", "h2", "h3"] {
            let slots = try await sql(
                inventory, member, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'h6'")
            #expect(slots.output.contains("\n0\n"), "no replication slot for h6 on \(member): \(slots.output)")
        }
        let keys = try await remote(
            inventory, "h1",
            "ETCDCTL_API=3 etcdctl --endpoints=https://10.213.0.11:2379 --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key get --prefix --keys-only /service/ | grep -c '/members/h6$' || true"
        )
        #expect(keys == ["0"], "no DCS member key for h6: \(keys)")
        let again = try await KeelBinary.run(["remove-node", "-i", inventory, "--yes", "h6", "h6", "--events", events])
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedSteps.isEmpty, "nothing left to remove: \(again)")

        let readded = try await KeelBinary.run(["add-node", "-i", inventory, "h6"])
        #expect(readded.status == 0, "\(readded)")
        let back = try await members(inventory, within: 120) { members in
            members.contains { $0["name"] as? String == "h6" && $0["state"] as? String == "streaming" }
        }
        #expect(back.contains { $0["name"] as? String == "h6" && $0["state"] as? String == "streaming" }, "\(back)")
        try await writerClean(cluster, writerHost, after: "add-node again")
    }

    /// The two etcd members added earlier leave in one remove-node run: etcd is back to 3 healthy members and the
    /// Patroni leader never changed.
    private func shrinkEtcd(_ cluster: LabClusterInventory) async throws {
        let inventory = cluster.path
        let leaderBefore =
            try await members(inventory, within: 30) { _ in true }
            .first { $0["role"] as? String == "leader" }?["name"] as? String
        let shrunk = try await KeelBinary.run([
            "remove-node", "-i", inventory, "--yes", "h4", "--yes", "h5", "h4", "h5",
        ])
        #expect(shrunk.status == 0, "\(shrunk)")
        let health = try await remote(
            inventory, "h1",
            "ETCDCTL_API=3 etcdctl --endpoints=https://10.213.0.11:2379 --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key member list | wc -l; "
                + "ETCDCTL_API=3 etcdctl --endpoints=https://10.213.0.11:2379,https://10.213.0.12:2379,https://10.213.0.13:2379 --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key endpoint health 2>&1 | grep -c 'is healthy'"
        )
        #expect(health == ["3", "3"], "etcd is back to 3 healthy members: \(health)")
        let leader =
            try await members(inventory, within: 30) { _ in true }
            .first { $0["role"] as? String == "leader" }?["name"] as? String
        #expect(leader == leaderBefore, "the Patroni leader stays \(leaderBefore ?? "?"): now \(leader ?? "none")")
        try String(contentsOfFile: inventory, encoding: .utf8)
            .replacingOccurrences(
                of:
                    "h3 ansible_host=10.213.0.13\nh4 ansible_host=10.213.0.14\nh5 ansible_host=10.213.0.15\n\n[balancers]",
                with: "h3 ansible_host=10.213.0.13\n\n[balancers]"
            )
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        let status = try await KeelBinary.run(["status", "-i", inventory])
        #expect(status.status == 0 && status.output.contains("etcd: 3 of 3 members healthy"), "\(status)")
    }
}
