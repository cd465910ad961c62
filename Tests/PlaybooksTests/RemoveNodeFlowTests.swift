import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("remove-node: what it refuses, the plan it shows, and what runs where")
struct RemoveNodeFlowTests {
    private func refusal(_ hosts: [String]) throws -> String? {
        let (model, _) = try ClusterModelTests().load()
        do {
            try RemoveNodeFlow(hosts: hosts, wipeData: false).check(model)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("refused before any host is contacted: no host, a balancer, the [master] host, every database host")
    func refusals() throws {
        #expect(try refusal([]) == "remove-node names no host\n  hint: name the hosts to remove")
        #expect(try refusal(["10.213.0.14"])?.hasPrefix("10.213.0.14 is not a database or etcd host") == true)
        #expect(try refusal(["10.213.0.11"])?.contains("switch over") == true)
        #expect(try refusal(["10.213.0.13"]) == nil)
    }

    @Test("the plan names every step, and the data directory's fate")
    func plan() throws {
        let (model, _) = try ClusterModelTests().load()
        let plan = RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: false).plan(model)
        #expect(
            plan == """
                remove-node will, on cluster pg-lab:
                  10.213.0.13: take it out of HAProxy on 10.213.0.14, 10.213.0.15; stop and disable Patroni and PgBouncer on it; delete its key in the DCS (Patroni drops its replication slot after member_slots_ttl); remove its pg_hba lines on 10.213.0.11, 10.213.0.12 (a reload); keep its data directory /var/lib/postgresql/15/main (--wipe-data deletes it); remove it from etcd (2 members stay), stop its etcd and clear its etcd data

                """, "\(plan)")
        #expect(
            RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: true).plan(model).contains(
                "DELETE its data directory /var/lib/postgresql/15/main"))
    }

    @Test("HAProxy first, then Patroni stops, the cluster forgets the member, the rest reload; etcd last")
    func plays() throws {
        let (model, _) = try ClusterModelTests().load()
        let playbook = RemoveNodeFlow(hosts: ["10.213.0.13"], wipeData: true).playbook(model, patroniWheel: [])
        #expect(
            playbook.plays.map { "\($0.name) on \($0.hosts)" } == [
                "removal guard on 10.213.0.11", "haproxy on 10.213.0.14,10.213.0.15", "patroni stopped on 10.213.0.13",
                "members forgotten on 10.213.0.11,10.213.0.12",
                "patroni access for new members on 10.213.0.11,10.213.0.12", "etcd members leaving on 10.213.0.11",
                "etcd stopped on 10.213.0.13", "data removed on 10.213.0.13",
            ])
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
        model.synchronousModeStrict = true
        let problems = RemovalGuard.problems(cluster: cluster, etcd: etcd, model: model, leaving: ["10.213.0.12"])
        #expect(problems.count == 2, "\(problems)")
        #expect(
            problems.first?.hasPrefix("synchronous_mode_strict would be left without a synchronous standby") == true)
        #expect(problems.last?.hasPrefix("etcd would keep 2 healthy of 2 members") == true)
    }
}
