import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("keel status's verdict")
struct ClusterStatusTests {
    private func status(
        _ members: [(String, String, String)], unconfirmed: [String: String] = [:], etcd: Int = 3,
        vip: [String] = ["10.213.0.14"]
    ) throws -> ClusterStatus {
        let json = try JSONSerialization.data(withJSONObject: [
            "members": members.map { ["name": $0.0, "role": $0.1, "state": $0.2, "host": $0.0] }
        ])
        var status = ClusterStatus(
            cluster: "pg-lab", readFrom: "10.213.0.12", members: try ClusterStatus.Member.decode(json),
            etcd: (0..<3).map { ClusterStatus.EtcdMember(endpoint: "e\($0)", health: $0 < etcd) }, vip: "10.213.0.100")
        status.vipHolders = vip
        status.unconfirmed = unconfirmed
        return status
    }

    private let healthy = [
        ("10.213.0.11", "leader", "running"), ("10.213.0.12", "sync_standby", "streaming"),
        ("10.213.0.13", "replica", "streaming"),
    ]

    @Test("healthy when every member answers and serves; degraded, with every reason, otherwise")
    func verdict() throws {
        let (model, _) = try ClusterModelTests().load()
        #expect(try status(healthy).findProblems(model).isEmpty)
        var cut = try status(
            [healthy[0], ("10.213.0.12", "leader", "running"), healthy[2]],
            unconfirmed: ["10.213.0.11": "unreachable: no route to host"], etcd: 2, vip: [])
        let problems = cut.findProblems(model)
        #expect(
            problems == [
                "10.213.0.11 does not answer (unreachable: no route to host)", "no synchronous standby",
                "etcd: 1 member(s) unhealthy", "the VIP 10.213.0.100 is on no host",
            ], "\(problems)")
        cut.problems = problems
        #expect(cut.table.contains("10.213.0.11  leader   running (STALE: no answer)"), "\(cut.table)")
        #expect(
            cut.table.hasSuffix(
                "DEGRADED: 10.213.0.11 does not answer (unreachable: no route to host); no synchronous standby; etcd: 1 member(s) unhealthy; the VIP 10.213.0.100 is on no host\n"
            ))
        let split = try status(
            [("10.213.0.11", "replica", "stopped"), healthy[1], healthy[2]], etcd: 1, vip: ["a", "b"])
        #expect(
            split.findProblems(model) == [
                "no leader", "10.213.0.11 is stopped", "etcd has no quorum (1 of 3 members healthy)",
                "the VIP 10.213.0.100 is on a and b",
            ])
    }
}
