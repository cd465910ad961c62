import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("remove-node: what it refuses, the plan it shows, and what runs where")
struct RemoveNodeFlowTests {
    private func refusal(_ hosts: [String]) throws -> String? {
        try ClusterModelTests().refusal(RemoveNodeFlow(hosts: hosts, wipeData: false))
    }

    @Test("refused before any host is contacted: no host, a balancer, the [master] host, every database host")
    func refusals() throws {
        #expect(try refusal([]) == "remove-node names no host\n  hint: name the hosts to remove")
        #expect(try refusal(["10.213.0.14"])?.hasPrefix("10.213.0.14 is not a database or etcd host") == true)
        #expect(try refusal(["10.213.0.11"])?.contains("switch over") == true)
        #expect(try refusal(["10.213.0.13"]) == nil)
    }

    @Test("refused from the inventory alone: a host named twice, etcd left without quorum, too few sync standbys")
    func inventoryDecides() throws {
        #expect(try refusal(["10.213.0.13", "10.213.0.13"])?.hasPrefix("remove-node names 10.213.0.13 twice") == true)
        #expect(try refusal(["10.213.0.13", ""])?.hasPrefix("remove-node is given an empty host name") == true)
        // Both replicas: 1 of 3 etcd members would stay, and no replica for synchronous_node_count 1.
        #expect(
            try refusal(["10.213.0.12", "10.213.0.13"])?.hasPrefix(
                "1 of the 3 etcd members would stay, fewer than its quorum (2)") == true)
        let etcdElsewhere = ClusterModelTests.hosts.replacingOccurrences(
            of: "[etcd_cluster]\n10.213.0.11\n10.213.0.12\n10.213.0.13",
            with: "[etcd_cluster]\n10.213.0.16\n10.213.0.17\n10.213.0.18")
        let sync = try ClusterModelTests().refusal(
            RemoveNodeFlow(hosts: ["10.213.0.12", "10.213.0.13"], wipeData: false), hosts: etcdElsewhere)
        #expect(
            sync?.hasPrefix("0 replica(s) would stay to be synchronous standbys, and synchronous_node_count is 1")
                == true, "\(sync ?? "accepted")")
        #expect(
            try ClusterModelTests().refusal(AddBalancerFlow(hosts: ["10.213.0.15", "10.213.0.15"]))?.hasPrefix(
                "add-balancer names 10.213.0.15 twice") == true)
        #expect(
            try ClusterModelTests().refusal(RemoveBalancerFlow(hosts: ["10.213.0.15", "10.213.0.15"]))?.hasPrefix(
                "remove-balancer names 10.213.0.15 twice") == true)
        #expect(
            try ClusterModelTests().refusal(AddNodeFlow(hosts: ["10.213.0.13", "10.213.0.13"], force: false))?
                .hasPrefix("add-node names 10.213.0.13 twice") == true)
    }

    @Test("the plan names every step, and the data directory's fate")
    func plan() throws {
        let (model, _) = try ClusterModelTests().load()
        let plan = (RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: false).plan(model) ?? "")
        #expect(
            plan == """
                remove-node will, on cluster pg-lab:
                  10.213.0.13: take it out of HAProxy on 10.213.0.14, 10.213.0.15; stop and disable Patroni and PgBouncer on it; delete its key in the DCS and its replication slot on the remaining members; remove its pg_hba lines on 10.213.0.11, 10.213.0.12 (a reload); keep its data directory /var/lib/postgresql/15/main (--wipe-data deletes it); remove it from etcd (2 members stay), stop its etcd and clear its etcd data

                """, "\(plan)")
        #expect(
            (RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: true).plan(model) ?? "").contains(
                "DELETE its data directory /var/lib/postgresql/15/main"))
    }

    @Test("HAProxy first, then Patroni stops, the cluster forgets the member, the rest reload; etcd last")
    func plays() throws {
        let (model, _) = try ClusterModelTests().load()
        let playbook = RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: true).playbook(
            model, carrying: CarriedSoftware())
        #expect(
            playbook.plays.map { "\($0.name) on \($0.hosts)" } == [
                "removal guard on 10.213.0.11", "haproxy on 10.213.0.14,10.213.0.15", "patroni stopped on 10.213.0.13",
                "members forgotten on 10.213.0.11,10.213.0.12", "member slots dropped on 10.213.0.11,10.213.0.12",
                "patroni access on 10.213.0.11,10.213.0.12", "etcd members leaving on 10.213.0.11",
                "etcd stopped on 10.213.0.13", "data removed on 10.213.0.13", "exporters removed on 10.213.0.13",
            ])
    }

    @Test("the slot goes as Patroni names it, with the retention at 0 only while it waits, one host at a time")
    func slotDropped() throws {
        let (model, directory) = try ClusterModelTests().load()
        #expect(MemberSlotDropped.slotName(of: "10.213.0.13") == "10_213_0_13")
        #expect(MemberSlotDropped.slotName(of: "PG-Node2") == "pg_node2")
        let playbook = RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: false).playbook(
            model, carrying: CarriedSoftware())
        #expect(playbook.plays.first { $0.name == "member slots dropped" }?.serial == 1)
        let slot = MemberSlotDropped(model: model, member: "10.213.0.13")
        let context = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        #expect(try slot.changes(from: ProbeOutput(text: "0"), on: context).isEmpty)
        let changes = try slot.changes(from: ProbeOutput(text: "1"), on: context)
        #expect(
            changes.map(\.summary) == ["drop replication slot 10_213_0_13 (member_slots_ttl 0 until Patroni drops it)"])
        let command = "\(changes.first?.actions ?? [])"
        let zero = try #require(command.range(of: #"{"member_slots_ttl":0}"#))
        let back = try #require(command.range(of: #"{"member_slots_ttl":"30min"}"#))
        #expect(zero.lowerBound < back.lowerBound, "\(command)")
        #expect(throws: ResourceError.self) { try slot.changes(from: ProbeOutput(text: "psql: error"), on: context) }
    }

    @Test("the guard refuses the leader, a strict cluster losing its only sync standby, and etcd losing its quorum")
    func guardProblems() throws {
        var (model, _) = try ClusterModelTests().load()
        let cluster =
            #"{"members":[{"name":"10.213.0.11","role":"leader","state":"running","host":"x"},"#
            + #"{"name":"10.213.0.12","role":"sync_standby","state":"streaming","host":"x"},"#
            + #"{"name":"10.213.0.13","role":"replica","state":"streaming","host":"x"}]}"#
        let etcd = #"[{"endpoint":"a","health":true},{"endpoint":"b","health":true}]"#
        #expect(
            RemovalGuard.problems(cluster: cluster, etcd: etcd, model: model, leaving: ["10.213.0.11"]).first?
                .hasPrefix("10.213.0.11 is the leader") == true)
        model.patroni.synchronousModeStrict = true
        let problems = RemovalGuard.problems(cluster: cluster, etcd: etcd, model: model, leaving: ["10.213.0.12"])
        #expect(problems.count == 2, "\(problems)")
        #expect(
            problems.first?.hasPrefix("synchronous_mode_strict would be left without a synchronous standby") == true)
        #expect(problems.last?.hasPrefix("etcd would keep 2 healthy of 2 members") == true)
    }
}
