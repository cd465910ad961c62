import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("add-node: which hosts it adds, what it refuses, and what runs where")
struct AddNodeFlowTests {
    private static let withNewReplica = ClusterModelTests.hosts.replacingOccurrences(
        of: "10.213.0.13 hostname=pgnode03\n", with: "10.213.0.13 hostname=pgnode03\n10.213.0.16 new_node=true\n")

    private func refusal(_ flow: some ClusterFlow, hosts: String = withNewReplica) throws -> String? {
        try ClusterModelTests().refusal(flow, hosts: hosts)
    }

    @Test("the hosts marked new_node=true, or those named; refused: none, a host not in the cluster, the master")
    func newHosts() throws {
        let (model, _) = try ClusterModelTests().load(hosts: Self.withNewReplica)
        #expect(model.newHosts == ["10.213.0.16"])
        #expect(AddNodeFlow(hosts: [], force: false).newHosts(model) == ["10.213.0.16"])
        #expect(AddNodeFlow(hosts: ["10.213.0.13"], force: false).newHosts(model) == ["10.213.0.13"])
        #expect(try refusal(AddNodeFlow(hosts: [], force: false)) == nil)
        #expect(
            try refusal(AddNodeFlow(hosts: [], force: false), hosts: ClusterModelTests.hosts)?.hasPrefix(
                "add-node has no new host") == true)
        #expect(
            try refusal(AddNodeFlow(hosts: ["10.213.0.14"], force: false))?.contains("keel add-balancer") == true)
        #expect(try refusal(AddNodeFlow(hosts: ["10.213.0.11"], force: false))?.contains("[master] host") == true)
    }

    @Test("the running members only get patroni.yml; the new one is installed, proves its login, then starts")
    func plays() throws {
        let (model, _) = try ClusterModelTests().load(hosts: Self.withNewReplica)
        let playbook = AddNodeFlow(hosts: [], force: false).playbook(model, carrying: CarriedSoftware())
        let plays = playbook.plays.map { "\($0.name) on \($0.hosts)" }
        #expect(
            plays == [
                "pre-flight on 10.213.0.11,10.213.0.12,10.213.0.13,10.213.0.16,10.213.0.14,10.213.0.15",
                "running cluster on 10.213.0.11", "common on 10.213.0.16", "etcd members joining on !all",
                "patroni access on 10.213.0.11,10.213.0.12,10.213.0.13",
                "postgresql and patroni on 10.213.0.16", "patroni members joining on 10.213.0.16",
                "pgbouncer on 10.213.0.16", "pgbouncer restarts on 10.213.0.16", "haproxy on 10.213.0.14,10.213.0.15",
            ], "\(plays)")
        let forced = AddNodeFlow(hosts: [], force: true).playbook(model, carrying: CarriedSoftware())
        #expect(!forced.plays.contains { $0.name == "running cluster" })
    }

    @Test("the running cluster must have one leader, every member serving, no pause and etcd's quorum")
    func runningCluster() {
        let members = ["a", "b"]
        func cluster(_ states: [(String, String, String)], pause: Bool = false) -> String {
            let listed = states.map { #"{"name":"\#($0.0)","role":"\#($0.1)","state":"\#($0.2)","host":"x"}"# }
            return #"{"members":[\#(listed.joined(separator: ","))]\#(pause ? #","pause":true"# : "")}"#
        }
        let etcd =
            #"[{"endpoint":"e1","health":true},{"endpoint":"e2","health":true},{"endpoint":"e3","health":false}]"#
        let healthy = cluster([("a", "leader", "running"), ("b", "replica", "streaming")])
        #expect(
            RunningClusterCheck.problems(cluster: healthy, etcd: etcd, members: members, etcdMembers: ["1", "2", "3"])
                .isEmpty)
        #expect(
            RunningClusterCheck.problems(
                cluster: cluster([("a", "replica", "running"), ("b", "replica", "stopped")], pause: true),
                etcd: "", members: members, etcdMembers: ["1", "2", "3"])
                == [
                    "Patroni is paused (maintenance mode)", "0 leaders", "b is stopped",
                    "etcd has no quorum (0 of 3 members healthy)",
                ])
        #expect(
            RunningClusterCheck.problems(cluster: "", etcd: etcd, members: members, etcdMembers: ["1"])
                == ["no member's Patroni answers"])
    }
}
