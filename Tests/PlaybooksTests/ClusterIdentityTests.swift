import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// The identity a destructive flow reads on each member before it plans.
@Suite("which cluster a host serves")
struct ClusterIdentityTests {
    @Test(
        "the scope is read as Keel writes it (quoted) and as others do (bare, single-quoted)",
        arguments: [
            ("scope: \"pg-lab\"\n", "pg-lab"), ("scope: postgres-cluster\n", "postgres-cluster"),
            ("name: x\nscope: 'main'  \n", "main"),
        ])
    func scope(file: String, scope: String) throws {
        let (model, directory) = try ClusterModelTests().load()
        let path = directory + "/patroni.yml"
        try file.write(toFile: path, atomically: true, encoding: .utf8)
        let command = ClusterIdentity.read(model).text.replacingOccurrences(of: "/etc/patroni/patroni.yml", with: path)
        let output = try Shell.run("/bin/sh", ["-c", command])
        #expect(ClusterIdentity(output).scope == scope, "\(output)")
    }

    @Test("another cluster's name or data on a member is refused; members agreeing give their system identifier")
    func check() throws {
        let (model, _) = try ClusterModelTests().load()
        let ours = ClusterIdentity(scope: model.name, systemID: "7312")
        #expect(try ClusterIdentity.check(["a": ours, "b": ours, "c": ClusterIdentity()], model) == "7312")
        #expect(throws: FlowError.self) {
            try ClusterIdentity.check(["a": ours, "b": ClusterIdentity(scope: "postgres-cluster")], model)
        }
        #expect(throws: FlowError.self) {
            try ClusterIdentity.check(["a": ours, "b": ClusterIdentity(scope: model.name, systemID: "9999")], model)
        }
    }
}
