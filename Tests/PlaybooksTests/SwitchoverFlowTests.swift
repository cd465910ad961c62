import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// The switchover's plan: which replica takes over, and what stops it before anything changes.
@Suite("switchover: the candidate chosen or refused, and the handover")
struct SwitchoverFlowTests {
    /// A status of the test cluster (10.213.0.11 leads on timeline 3) with these replicas: name, role, state,
    /// timeline, lag.
    func status(_ replicas: [(String, String, String, Int, Int)], paused: Bool = false) throws -> ClusterStatus {
        let members: [[String: Any]] =
            [["name": "10.213.0.11", "role": "leader", "state": "running", "host": "10.213.0.11", "timeline": 3]]
            + replicas.map {
                ["name": $0.0, "role": $0.1, "state": $0.2, "host": $0.0, "timeline": $0.3, "lag": $0.4]
            }
        let json = try JSONSerialization.data(withJSONObject: ["members": members, "pause": paused])
        let (listed, isPaused) = try ClusterStatus.Member.decode(json)
        var status = ClusterStatus(
            cluster: "pg-lab", readFrom: "10.213.0.11", members: listed,
            etcd: (0..<3).map { ClusterStatus.EtcdMember(endpoint: "e\($0)", health: true) }, vip: nil)
        status.paused = isPaused
        return status
    }

    let healthy = [
        ("10.213.0.12", "sync_standby", "streaming", 3, 0), ("10.213.0.13", "replica", "streaming", 3, 0),
    ]

    @Test("without --to, the synchronous standby takes over; the plan says who and how it stands")
    func chosen() throws {
        let (model, _) = try ClusterModelTests().load()
        let flow = try SwitchoverFlow(status: try status(healthy), model: model, to: nil)
        #expect(flow.leader == "10.213.0.11" && flow.candidate == "10.213.0.12")
        #expect(
            flow.plan(model)?.contains(
                "hand the leader's role to 10.213.0.12 (the synchronous standby, streaming on timeline 3, 0 B behind)")
                == true, "\(flow.plan(model) ?? "")")
        // The balancers' PgBouncers pause around the hand-over itself, not while the checks may wait.
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "switchover checks on 10.213.0.11", "pgbouncer paused on 10.213.0.14,10.213.0.15",
                "switchover on 10.213.0.11", "pgbouncer resumed on 10.213.0.14,10.213.0.15",
                "former leader streaming on 10.213.0.11",
            ])
    }

    @Test(
        "refused, naming why, before anything changes",
        arguments: [
            (
                nil as String?, false, "10.213.0.13", "streaming", 3, 0,
                "the cluster is not healthy: no synchronous standby"
            ),
            (
                "10.213.0.13", false, "sync_standby", "streaming", 3, 0,
                "10.213.0.13 cannot take over: it is not the synchronous standby"
            ),
            (
                "10.213.0.12", false, "sync_standby", "stopped", 3, 0,
                "the cluster is not healthy: 10.213.0.12 is stopped"
            ),
            (
                "10.213.0.12", false, "sync_standby", "streaming", 2, 0,
                "10.213.0.12 cannot take over: it is on timeline 2"
            ),
            (
                "10.213.0.12", false, "sync_standby", "streaming", 3, 9_000_000,
                "10.213.0.12 cannot take over: it lags 9000000 B behind"
            ),
            ("10.213.0.19", false, "sync_standby", "streaming", 3, 0, "10.213.0.19 is not a member of the cluster"),
            ("10.213.0.12", true, "sync_standby", "streaming", 3, 0, "Patroni is paused (maintenance mode)"),
        ] as [(String?, Bool, String, String, Int, Int, String)])
    func refused(
        to: String?, paused: Bool, role: String, state: String, timeline: Int, lag: Int, reason: String
    ) throws {
        let (model, _) = try ClusterModelTests().load()
        let replicas = [("10.213.0.12", role, state, timeline, lag), ("10.213.0.13", "replica", "streaming", 3, 0)]
        #expect {
            _ = try SwitchoverFlow(status: try status(replicas, paused: paused), model: model, to: to)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("run again --to the member leading now, it does nothing")
    func again() throws {
        let (model, _) = try ClusterModelTests().load()
        let flow = try SwitchoverFlow(status: try status(healthy), model: model, to: "10.213.0.11")
        #expect(flow.plan(model) == "switchover: 10.213.0.11 leads already, nothing to do\n")
        #expect(flow.playbook(model, carrying: CarriedSoftware()).plays.isEmpty)
    }

    @Test("a member tagged nofailover never takes over")
    func nofailover() throws {
        let (model, _) = try ClusterModelTests().load(
            hosts: ClusterModelTests.hosts.replacingOccurrences(
                of: "10.213.0.12 hostname=pgnode02",
                with: "10.213.0.12 hostname=pgnode02 patroni_tags=\"nofailover=true\""),
            vars: ClusterModelTests.vars + "\nsynchronous_mode: false\n")
        let flow = try SwitchoverFlow(status: try status(healthy), model: model, to: nil)
        #expect(flow.candidate == "10.213.0.13")
        #expect(throws: FlowError.self) {
            try SwitchoverFlow(status: try status(self.healthy), model: model, to: "10.213.0.12")
        }
    }

    @Test("a refused handover prints Patroni's answer and fails; an accepted one succeeds")
    func post() throws {
        let (model, _) = try ClusterModelTests().load()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-post-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A curl that writes its answer where -o says and prints the status -w asks for.
        try Shell.writeExecutable(
            scratch.appendingPathComponent("curl").path,
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                + "printf '%s' \"$ANSWER\" > \"$out\"; printf '%s' \"$CODE\"\n")
        let command = PatroniAPI(model, member: "10.213.0.11").send("POST", "/switchover", json: "{}", timeout: 5).text
        let path = scratch.path + ":/usr/bin:/bin"
        let refused = try Shell.capture(
            "/bin/sh", ["-c", command],
            environment: ["PATH": path, "CODE": "412", "ANSWER": "candidate name does not match with sync_standby"])
        #expect(refused.status != 0)
        #expect(refused.output == "Patroni answered 412: candidate name does not match with sync_standby\n")
        let done = try Shell.capture(
            "/bin/sh", ["-c", command],
            environment: ["PATH": path, "CODE": "200", "ANSWER": "Successfully switched over"])
        #expect(done.status == 0 && done.output.isEmpty, "\(done)")
    }

    @Test("the hand-over first waits for transactions older than max_transaction_sec on the leader (15 s unless set)")
    func longTransactions() throws {
        let (model, _) = try ClusterModelTests().load()
        #expect(
            SwitchedOver.handOver(model, from: "10.213.0.11", to: nil).contains { $0.text.contains("'15 seconds'") })
        let (patient, _) = try ClusterModelTests().load(vars: ClusterModelTests.vars + "\nmax_transaction_sec: 60\n")
        let steps = SwitchedOver.handOver(patient, from: "10.213.0.11", to: nil)
        let wait = try #require(steps.firstIndex { $0.text.contains("'60 seconds'") })
        let post = try #require(steps.firstIndex { $0.text.contains("/switchover") })
        #expect(wait < post)
        // Run with a psql that finds no such transaction, the wait ends at once.
        let noLongTransaction = SwitchedOver.noLongTransaction(patient, on: "10.213.0.11")
        #expect(steps[wait].text.contains(noLongTransaction.text))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-xact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Shell.writeExecutable(scratch.appendingPathComponent("runuser").path, "#!/bin/sh\ncat >/dev/null\necho 0\n")
        let none = try Shell.capture(
            "/bin/sh", ["-c", noLongTransaction.text], environment: ["PATH": scratch.path + ":/usr/bin:/bin"])
        #expect(none.status == 0 && none.output.isEmpty, "\(none)")
        #expect(
            ClusterModelTests().error(vars: ClusterModelTests.vars + "\nmax_transaction_sec: 0\n")?.message.contains(
                "max_transaction_sec") == true)
    }
}
