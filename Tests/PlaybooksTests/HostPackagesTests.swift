import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("each host's packages in one transaction")
struct HostPackagesTests {
    /// Type A with a repository host, and Type B (the VIP on the leader, no balancers).
    static let models: [(String, String)] = [
        (ClusterModelTests.hostsWithRepository, ClusterModelTests.vars + "\npgbackrest_install: true\n"),
        (
            ClusterModelTests.hosts.replacingOccurrences(of: "[balancers]\n10.213.0.14\n10.213.0.15\n", with: ""),
            ClusterModelTests.vars.replacingOccurrences(
                of: "with_haproxy_load_balancing: true", with: "with_haproxy_load_balancing: false")
        ),
    ]

    @Test(
        "the common play installs exactly what the deploy's roles install on each host, after Debian's main cluster is turned off",
        arguments: 0..<models.count)
    func commonInstallsEveryRolesPackages(model index: Int) throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.models[index].0, vars: Self.models[index].1)
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        // Every host's facts as a run gathers them: the repository's SSH trust pins its peers' host keys.
        var facts = Facts()
        facts.sshHostKeys = ["ssh-ed25519 AAAA"]
        let peers = Dictionary(uniqueKeysWithValues: model.allHosts.map { ($0, facts) })
        var common: [String: [String]] = [:]
        var roles: [String: Set<String>] = [:]
        for play in DeployFlow().playbook(model, carrying: CarriedSoftware()).plays {
            for name in try inventory.select(play.hosts) {
                let host = try ClusterModelTests.host(name, directory)
                let steps = try play.body(
                    HostContext(name: name, inventory: inventory, facts: host.facts, peers: peers))
                let installed = steps.compactMap { $0.resource as? Package }.filter { $0.state == .present }
                if play.name == "common" {
                    let mainClusterOff = steps.firstIndex { $0.resource.description.contains("createcluster.conf") }
                    let last = try #require(installed.last)
                    common[name] = last.names
                    if model.databaseHosts.contains(name) {
                        let index = try #require(mainClusterOff, "\(name): createcluster.conf")
                        #expect(steps[index...].contains { ($0.resource as? Package)?.names == last.names })
                    }
                } else {
                    roles[name, default: []].formUnion(installed.flatMap(\.names))
                }
            }
        }
        #expect(Set(common.keys) == Set(model.allHosts))
        for host in model.allHosts {
            #expect(Set(common[host] ?? []) == roles[host] ?? [], "\(host)")
        }
    }
}
