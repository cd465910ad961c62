import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("keepalived, add-balancer and remove-balancer: unicast peers, distinct priorities, and the order of reloads")
struct BalancerFlowTests {
    private static let withNewBalancer = ClusterModelTests.hosts.replacingOccurrences(
        of: "10.213.0.15\n", with: "10.213.0.15\n10.213.0.17 new_node=true\n")

    private func refusal(_ flow: some ClusterFlow, hosts: String = withNewBalancer) throws -> String? {
        try ClusterModelTests().refusal(flow, hosts: hosts)
    }

    @Test("each balancer names the others as unicast peers, with a priority of its own; the VIP's router id")
    func configuration() throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.withNewBalancer)
        var facts = Facts()
        facts.interfaces = ["eth0": ["10.213.0.15/24"]]
        let host = HostContext(
            name: "10.213.0.15", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts)
        let vip = try #require(model.vip)
        let steps = try KeepalivedRole(host: host, model: model, vip: vip).steps
        let template = try #require(steps.compactMap { $0.resource as? Template }.first)
        #expect(
            steps.flatMap(\.handlers).map(\.description) == ["reload systemd units"],
            "no handler reloads keepalived (the plays order the reloads); its unit's drop-in reloads systemd")
        let text = try template.render(for: host)
        #expect(
            text.contains(
                "    nopreempt\n    interface eth0\n    virtual_router_id 100\n    priority 199\n    advert_int 1\n"
                    + "    unicast_src_ip 10.213.0.15\n    unicast_peer {\n        10.213.0.14\n        10.213.0.17\n    }\n"
            ),
            "\(text)")
        #expect(!text.contains("    weight "), "a failing HAProxy check gives the VIP up: \(text)")
        #expect(
            model.balancerHosts.map { KeepalivedRole.priority(of: $0, in: model) } == [200, 199, 198])
    }

    @Test("keepalived_virtual_router_id is checked and used")
    func routerID() throws {
        let (model, _) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\nkeepalived_virtual_router_id: 51\n")
        #expect(model.vip?.routerID == 51)
        #expect(throws: (any Error).self) {
            try ClusterModelTests().load(vars: ClusterModelTests.vars + "\nkeepalived_virtual_router_id: 300\n")
        }
    }

    @Test("pre-flight of a new balancer refuses another VRRP router using the cluster's virtual_router_id")
    func routerIDTaken() throws {
        let (model, directory) = try ClusterModelTests().load()
        var facts = Facts()
        facts.interfaces = ["eth0": ["10.213.0.14/24"]]
        let balancer = HostContext(
            name: "10.213.0.14", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts)
        let preflight = Preflight(model: model, host: balancer.name)
        #expect(preflight.probe.contains("IP_ADD_MEMBERSHIP"))
        let heard = "os=debian 12\nvrrp=100 10.213.0.15\nvrrp=7 10.213.0.50\n"
        #expect(try preflight.changes(from: ProbeOutput(text: heard), on: balancer).isEmpty)
        #expect {
            try preflight.changes(from: ProbeOutput(text: heard + "vrrp=100 10.213.0.50\n"), on: balancer)
        } throws: {
            "\($0)".contains("another VRRP router (10.213.0.50) already uses virtual_router_id 100 on this network")
        }
    }

    @Test("a newer configuration stops a backup, reloads the holder, and leaves a stopped or loaded one alone")
    func reloads() throws {
        let (model, directory) = try ClusterModelTests().load()
        let vip = try #require(model.vip)
        let context = HostContext(
            name: "10.213.0.14", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        func summaries(_ stage: KeepalivedReload.Stage, _ probe: String) throws -> [String] {
            try KeepalivedReload(vip: vip, stage: stage).changes(from: ProbeOutput(text: probe), on: context)
                .map(\.summary)
        }
        #expect(try summaries(.backups, "active\nnew\nnot").first?.hasPrefix("stop keepalived") == true)
        #expect(try summaries(.backups, "active\nnew\nholds").isEmpty)
        #expect(try summaries(.holder, "active\nnew\nholds") == ["reload keepalived on the VIP holder"])
        #expect(try summaries(.holder, "active\nnew\nnot").isEmpty)
        #expect(try summaries(.backups, "inactive\nnew\nnot").isEmpty)
        #expect(try summaries(.holder, "active\nloaded\nholds").isEmpty)
        #expect(throws: ResourceError.self) { try summaries(.holder, "active") }
    }

    @Test("add-balancer: the balancers marked new, or named; refused: none, a database host, every balancer new")
    func addRefusals() throws {
        let (model, _) = try ClusterModelTests().load(hosts: Self.withNewBalancer)
        #expect(AddBalancerFlow(hosts: []).newHosts(model) == ["10.213.0.17"])
        #expect(AddNodeFlow(hosts: [], force: false).newHosts(model).isEmpty, "add-node leaves balancers alone")
        #expect(try refusal(AddBalancerFlow(hosts: [])) == nil)
        #expect(
            try refusal(AddBalancerFlow(hosts: []), hosts: ClusterModelTests.hosts)?.hasPrefix(
                "add-balancer has no new host") == true)
        #expect(try refusal(AddBalancerFlow(hosts: ["10.213.0.12"]))?.contains("keel add-node") == true)
        #expect(
            try refusal(AddBalancerFlow(hosts: ["10.213.0.14", "10.213.0.15", "10.213.0.17"]))?.hasPrefix(
                "every balancer is new") == true)
    }

    @Test(
        "add-balancer: the members let its PgBouncer in; HAProxy on the new host routes before keepalived changes anywhere; holder reloaded last"
    )
    func addPlays() throws {
        let (model, _) = try ClusterModelTests().load(hosts: Self.withNewBalancer)
        let playbook = AddBalancerFlow(hosts: []).playbook(model, carrying: CarriedSoftware())
        #expect(
            playbook.plays.map { "\($0.name) on \($0.hosts)\($0.serial.map { " serial \($0)" } ?? "")" } == [
                "pre-flight on 10.213.0.11,10.213.0.12,10.213.0.13,10.213.0.14,10.213.0.15,10.213.0.17",
                "common on 10.213.0.17", "patroni access on 10.213.0.11,10.213.0.12,10.213.0.13",
                "pgbouncer on 10.213.0.17", "pgbouncer restarts on 10.213.0.17 serial 1", "haproxy on 10.213.0.17",
                "haproxy routes to replicas on 10.213.0.17",
                "keepalived configuration on 10.213.0.14,10.213.0.15,10.213.0.17",
                "keepalived backups on 10.213.0.14,10.213.0.15,10.213.0.17 serial 1",
                "keepalived VIP holder on 10.213.0.14,10.213.0.15,10.213.0.17",
                "keepalived on 10.213.0.14,10.213.0.15,10.213.0.17 serial 1",
            ])
        #expect(playbook.plays.allSatisfy { $0.anyErrorsFatal })
    }

    @Test(
        "remove-balancer: refused for the last balancer; the VIP handed over first, HAProxy and PgBouncer stopped, then its pg_hba line gone"
    )
    func removal() throws {
        #expect(
            try refusal(RemoveBalancerFlow(hosts: []))
                == "remove-balancer names no host\n  hint: name the balancers to remove")
        #expect(
            try refusal(RemoveBalancerFlow(hosts: ["10.213.0.12"]))?.hasPrefix("10.213.0.12 is not in [balancers]")
                == true)
        #expect(
            try refusal(RemoveBalancerFlow(hosts: ["10.213.0.14", "10.213.0.15", "10.213.0.17"]))?.hasPrefix(
                "no balancer would remain") == true)
        let (model, _) = try ClusterModelTests().load(hosts: Self.withNewBalancer)
        let flow = RemoveBalancerFlow(hosts: ["10.213.0.14"])
        #expect(
            (flow.plan(model) ?? "").contains("one of 10.213.0.15, 10.213.0.17 takes it over at once"),
            "\((flow.plan(model) ?? ""))")
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "VIP handed over on 10.213.0.14", "keepalived configuration on 10.213.0.15,10.213.0.17",
                "keepalived backups on 10.213.0.15,10.213.0.17", "keepalived VIP holder on 10.213.0.15,10.213.0.17",
                "keepalived on 10.213.0.15,10.213.0.17", "haproxy stopped on 10.213.0.14",
                "patroni access on 10.213.0.11,10.213.0.12,10.213.0.13", "exporters removed on 10.213.0.14",
            ])
        let remaining = try ClusterModelTests().load(
            hosts: Self.withNewBalancer.replacingOccurrences(of: "[balancers]\n10.213.0.14\n", with: "[balancers]\n")
        ).0
        #expect(!remaining.memberHBA.contains { $0.contains("10.213.0.14/32") })
        #expect(model.memberHBA.contains("hostssl all all 10.213.0.14/32 scram-sha-256"))
    }
}

extension BalancerFlowTests {
    @Test("vip_interface as Jinja over facts is each balancer's own, not the first database host's")
    func interfacePerHost() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-vip-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory + "/group_vars", withIntermediateDirectories: true)
        try ClusterModelTests.hosts.write(toFile: directory + "/hosts.ini", atomically: true, encoding: .utf8)
        try (ClusterModelTests.vars + "\nvip_interface: \"{{ ansible_default_ipv4.interface }}\"\n").write(
            toFile: directory + "/group_vars/all.yml", atomically: true, encoding: .utf8)
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        func facts(_ interface: String, _ address: String) -> [String: InventoryValue] {
            var facts = Facts()
            facts.defaultInterface = interface
            facts.defaultIPv4 = address
            facts.interfaces = [interface: ["\(address)/24"]]
            return facts.ansibleVariables
        }
        var gathered: [String: [String: InventoryValue]] = [:]
        for (host, interface) in [
            ("10.213.0.11", "eth0"), ("10.213.0.12", "eth0"), ("10.213.0.13", "eth0"), ("10.213.0.14", "ens3"),
            ("10.213.0.15", "enp1s0"),
        ] {
            gathered[host] = facts(interface, host)
        }
        let model = try ClusterModel.load(
            from: inventory.adding(facts: gathered),
            secrets: try ClusterSecrets(besideInventory: inventory.path, readOnly: true))
        #expect(model.vip?.interfaces["10.213.0.14"] == "ens3")
        #expect(model.vip?.interfaces["10.213.0.15"] == "enp1s0")
        #expect(model.vip?.interfaces["10.213.0.11"] == "eth0")
    }
}
