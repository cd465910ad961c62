import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("keel status's verdict")
struct ClusterStatusTests {
    private func status(
        _ members: [(String, String, String)], unconfirmed: [String: String] = [:], etcd: Int = 3,
        vip: [String] = ["10.213.0.14"], lag: [String: Any] = [:]
    ) throws -> ClusterStatus {
        let json = try JSONSerialization.data(withJSONObject: [
            "members": members.map { member in
                ["name": member.0, "role": member.1, "state": member.2, "host": member.0].merging(
                    lag[member.0].map { ["lag": $0] } ?? [:], uniquingKeysWith: { $1 })
            }
        ])
        var status = ClusterStatus(
            cluster: "pg-lab", readFrom: "10.213.0.12", members: try ClusterStatus.Member.decode(json).members,
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

    @Test("a host a killed update left out of service is named, a balancer as well as a member")
    func unfinishedUpdate() throws {
        let (model, _) = try ClusterModelTests().load()
        var left = try status(healthy)
        left.updateUnfinished = ["10.213.0.15", "10.213.0.12"]
        #expect(
            left.findProblems(model) == [
                "an update stopped on 10.213.0.12 before it was back in service (run keel update)",
                "an update stopped on 10.213.0.15 before it was back in service (run keel update)",
            ], "in the inventory's order")
        #expect(left.serviceProblems(model, excusing: ["10.213.0.12", "10.213.0.15"]).isEmpty)
    }

    @Test("an unfinished upgrade is a problem that names what to run")
    func unfinishedUpgrade() throws {
        let (model, _) = try ClusterModelTests().load()
        var left = try status(healthy)
        left.upgradeUnfinished = "the upgrade to PostgreSQL 17 is UNFINISHED (done on 10.213.0.12: stopped)"
        #expect(left.findProblems(model) == [left.upgradeUnfinished])
        #expect(throws: FlowError.self) { try left.refuseUnlessHealthy(model, because: "a test") }
    }

    @Test("a member's state is what its own Patroni reports now, in the words of /cluster")
    func ownState() {
        func state(_ json: String) -> String? { ClusterStatus.ownState(Data(json.utf8)) }
        #expect(state(#"{"state": "running", "role": "primary", "timeline": 2}"#) == "running")
        #expect(state(#"{"state": "running", "role": "replica", "replication_state": "streaming"}"#) == "streaming")
        #expect(
            state(#"{"state": "running", "role": "replica", "replication_state": "in archive recovery"}"#) == "running")
        // PostgreSQL down: Patroni names the role the data directory last had; the state tells.
        #expect(state(#"{"state": "stopped", "role": "primary"}"#) == "stopped")
        #expect(state(#"{"state": "starting", "role": "replica"}"#) == "starting")
        #expect(state("curl: (7) Failed to connect") == nil)
    }

    @Test("a replica lagging past maximum_lag_on_failover is named; a lag within it, or unknown, is not")
    func lag() throws {
        let (model, _) = try ClusterModelTests().load()
        #expect(model.patroni.maximumLagOnFailover == 1_048_576)
        let within = try status(healthy, lag: ["10.213.0.12": 1_048_576, "10.213.0.13": "unknown"])
        #expect(within.findProblems(model).isEmpty)
        let behind = try status(healthy, lag: ["10.213.0.13": 5_000_000])
        #expect(
            behind.findProblems(model) == [
                "10.213.0.13 lags 5000000 bytes behind the leader (more than maximum_lag_on_failover, 1048576: it would not be promoted)"
            ])
    }

    @Test("backups: a scheduled run that failed, and a timer that fired without leaving a backup of its kind")
    func backups() throws {
        let full = BackupStatus.Backup(label: "20261122-063000F", type: "full", finished: 1_000, size: 1)
        let runs = BackupStatus.parseRuns(
            "full @900 success inactive\ndiff @2000 exit-code failed\n", host: "h4")
        #expect(runs.map(\.type) == ["full", "diff"] && runs[0].fired == 900 && !runs[1].running)
        var backups = BackupStatus(repository: "h4", stanza: "lab", status: "ok", backups: [full], runs: runs)
        #expect(
            backups.problems == [
                "the last scheduled diff backup failed on h4 (exit-code; see journalctl -u pgbackrest-lab-diff.service)"
            ])
        backups.runs = BackupStatus.parseRuns("full @1500 success inactive\ndiff  success inactive", host: "h4")
        #expect(backups.runs[1].fired == nil)
        #expect(backups.problems == ["no full backup since its timer fired on h4 at 1970-01-01T00:25:00Z"])
        backups.runs = BackupStatus.parseRuns("full @1500 success active", host: "h4")
        #expect(backups.problems.isEmpty, "a backup in progress is not late")
        backups.runs = BackupStatus.parseRuns("diff @900 success inactive", host: "h4")
        #expect(backups.problems.isEmpty, "a full backup counts for a differential run")
        backups.status = "no valid backups"
        #expect(backups.problems == ["backups: no valid backups"])
        let model = ClusterModel.Backups(
            repository: .shared, path: "/srv/backups", stanza: "lab", retentionFull: 2, fullSchedule: "Sun",
            differentialSchedule: "Mon")
        #expect(
            BackupStatus.runsCommand(model).hasPrefix(
                "echo full \"$(systemctl show -P LastTriggerUSec --timestamp=unix pgbackrest-lab-full.timer)\" "))
    }
}
