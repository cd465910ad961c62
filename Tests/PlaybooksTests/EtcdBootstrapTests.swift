import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("An etcd member without data starts a new cluster, or joins the running one after member add")
struct EtcdBootstrapTests {
    private func changes(_ probe: String, host: String = "10.213.0.13") throws -> [Change] {
        let (model, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: host, inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        return try EtcdBootstrap(model: model, host: host).changes(from: ProbeOutput(text: probe), on: context)
    }

    /// etcdctl's member list of members at `addresses`, those in `started` with their client URLs (as etcd 3.4
    /// prints it, a new cluster's members named from the start).
    private func memberList(_ addresses: [String], started: Set<String>? = nil) -> String {
        #"{"header":{},"members":["#
            + addresses.map { address in
                let clients =
                    (started ?? Set(addresses)).contains(address) ? #","clientURLs":["https://\#(address):2379"]"# : ""
                return #"{"ID":1,"name":"\#(address)","peerURLs":["https://\#(address):2380"]\#(clients)}"#
            }.joined(separator: ",")
            + "]}"
    }

    private let all =
        "10.213.0.11=https://10.213.0.11:2380,10.213.0.12=https://10.213.0.12:2380,"
        + "10.213.0.13=https://10.213.0.13:2380"

    @Test("a member with data is left alone; with no other member answering, it is one of a new cluster's first")
    func newCluster() throws {
        #expect(try changes("data").isEmpty)
        let first = try changes("--- running members:")
        #expect(first.map(\.summary) == ["write /etc/default/etcd-bootstrap"])
        let command = try #require(first.first?.shown.first)
        #expect(command.contains(#"ETCD_INITIAL_CLUSTER="\#(all)""#) && command.contains(#"STATE="new""#))
    }

    @Test("a member the running cluster already lists starts as existing; one it does not is added first")
    func join() throws {
        let listed = try changes("--- running members:" + memberList(["10.213.0.11", "10.213.0.12", "10.213.0.13"]))
        let command = try #require(listed.first?.shown.first)
        #expect(command.contains(#"ETCD_INITIAL_CLUSTER="\#(all)""#) && command.contains(#"STATE="existing""#))

        let added = try changes("--- running members:" + memberList(["10.213.0.11", "10.213.0.12"]))
        #expect(added.map(\.summary) == ["add 10.213.0.13 to the running etcd cluster (10.213.0.11, 10.213.0.12)"])
        let add = try #require(added.first?.shown.first)
        #expect(add.contains("--endpoints=https://10.213.0.11:2379,https://10.213.0.12:2379 "))
        #expect(add.contains("member add 10.213.0.13 --peer-urls=https://10.213.0.13:2380 >/dev/null && printf"))
        #expect(add.contains(#"ETCD_INITIAL_CLUSTER="\#(all)""#) && add.contains(#"STATE="existing""#))
    }

    @Test("the bootstrap file already written is converged; a member the inventory does not list is an error")
    func convergedAndForeign() throws {
        let command = try #require(try changes("--- running members:").first?.shown.first)
        // What the command writes is what the probe then reads back.
        let written = try #require(command.split(separator: "'").dropFirst(3).first)
        #expect(written.hasPrefix("# Managed by Keel") && written.hasSuffix("-etcd\"\n"), "\(command)")
        #expect(try changes(String(written) + "--- running members:").isEmpty)
        #expect(throws: ResourceError.self) {
            try changes("--- running members:" + memberList(["10.213.0.11", "10.213.0.99"]))
        }
    }

    @Test(
        "a first member still unstarted keeps its new cluster's file while the others start; one that ran before and lost its data starts as existing"
    )
    func lateFirstMember() throws {
        let command = try #require(try changes("--- running members:").first?.shown.first)
        let written = String(try #require(command.split(separator: "'").dropFirst(3).first))
        let all = ["10.213.0.11", "10.213.0.12", "10.213.0.13"]
        let othersStarted = memberList(all, started: ["10.213.0.11", "10.213.0.12"])
        #expect(try changes(written + "--- running members:" + othersStarted).isEmpty)
        let rerun = try changes(written + "--- running members:" + memberList(all))
        let rewritten = try #require(rerun.first?.shown.first)
        #expect(rewritten.contains(#"STATE="existing""#), "\(rerun)")
    }
}
