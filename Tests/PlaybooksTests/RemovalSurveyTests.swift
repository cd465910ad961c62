import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// remove-cluster's survey, run for real against hosts laid out on the local machine (``RootedTransport``).
@Suite("the removal survey against local hosts")
struct RemovalSurveyTests {
    /// Every host of the cluster as one local root holding a member's data, Patroni's configuration and etcd's data,
    /// with an etcdctl that lists `keys`.
    func survey(scope: String, keys: [String]) async throws -> ClusterRemovalSurvey {
        let (model, directory) = try ClusterModelTests().load()
        let host = try RootedTransport(root: directory + "/root")
        try host.write("x", to: model.dataDirectory + "/PG_VERSION")
        try host.write("scope: \(scope)\nname: pgnode01\n", to: "/etc/patroni/patroni.yml")
        try host.write("", to: EtcdBootstrap.dataDirectory + "/member/snap/db")
        try host.fake("etcdctl", "printf '%s\\n' \(keys.map(shellQuote).joined(separator: " "))")
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        return try await ClusterRemovalSurvey.read(
            model, removeEtcd: false, deletingBackups: false, inventory: inventory,
            fleet: Fleet(connector: { _ in host }))
    }

    @Test("it lists what exists, and keeps etcd when another cluster's keys are there")
    func neighbour() async throws {
        let survey = try await survey(
            scope: "\"pg-lab\"", keys: ["/service/pg-lab/leader", "/service/lab2/config", "/app/settings"])
        #expect(survey.otherClusters == ["/app/", "lab2"])
        #expect(!survey.removesEtcd)
        #expect(survey.unread.isEmpty)
        let member = try #require(survey.paths["10.213.0.11"]).map(\.path)
        #expect(member.contains { $0.hasSuffix("/var/lib/postgresql/15/main") }, "\(member)")
        #expect(member.contains { $0.hasSuffix("/etc/patroni") }, "\(member)")
        #expect(!member.contains { $0.hasSuffix("/etc/default/etcd") }, "etcd stays: \(member)")
    }

    @Test("with only its own keys in etcd, etcd goes too")
    func alone() async throws {
        let survey = try await survey(scope: "pg-lab", keys: ["/service/pg-lab/leader"])
        #expect(survey.otherClusters.isEmpty && survey.removesEtcd)
        let etcd = try #require(survey.paths["10.213.0.12"]).map(\.path)
        #expect(etcd.contains { $0.hasSuffix(EtcdBootstrap.dataDirectory) }, "\(etcd)")
    }

    @Test("a host serving another Patroni cluster stops the removal before it plans")
    func otherCluster() async throws {
        await #expect {
            _ = try await survey(scope: "postgres-cluster", keys: [])
        } throws: { error in
            "\(error)".contains("serves the Patroni cluster 'postgres-cluster' (its patroni.yml), not 'pg-lab'")
        }
    }
}
