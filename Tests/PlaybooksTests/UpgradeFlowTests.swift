import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("upgrade: refused before anything changes, planned, and its first stage")
struct UpgradeFlowTests {
    /// Every member running `major`, with room, the leader holding `extensions`.
    func survey(
        major: Int = 13, free: Int = 10 << 30, extensions: [String] = ["pg_stat_statements"], prepared: Int = 0,
        tablespaces: Int = 0, planted: String? = nil
    ) -> UpgradeSurvey {
        var survey = UpgradeSurvey(members: [:], extensions: [], preparedTransactions: 0)
        for host in ["10.213.0.11", "10.213.0.12", "10.213.0.13"] {
            let lines =
                ["server_version=\(major * 10000 + 23)", "free=\(free)", "wal=\(64 << 20)"]
                + (host == "10.213.0.13" ? planted.map { ["planted=\($0)"] } ?? [] : [])
                + (host == "10.213.0.11"
                    ? extensions.map { "extension=\($0)" } + [
                        "extension=plpgsql", "prepared=\(prepared)", "tablespaces=\(tablespaces)",
                    ] : [])
            survey.add(ProbeOutput(text: lines.joined(separator: "\n")), of: host, isLeader: host == "10.213.0.11")
        }
        return survey
    }

    /// `plan`'s journal record on a host, with `lines` after its header (`begun: …`, `done: …`).
    static func record(_ plan: UpgradePlan, _ lines: String...) throws -> JournalRecord {
        try #require(
            JournalRecord(
                flow: UpgradePlan.flow,
                text: (["id: \(plan.id)", JournalRecord.encode(plan)] + lines).joined(separator: "\n")))
    }

    func model(_ version: Int = 13) throws -> ClusterModel {
        try ClusterModelTests().load(
            vars: ClusterModelTests.vars.replacingOccurrences(
                of: "postgresql_version: 15", with: "postgresql_version: \(version)")
                + "\npgdg_repository: true\n"
        ).0
    }

    @Test(
        "refused, naming why: not newer, another release running, a prepared transaction, a lagging replica, no room, a planted link"
    )
    func refusals() throws {
        let model = try model()
        let healthy = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        func refusal(_ survey: UpgradeSurvey, to target: Int = 15, status: ClusterStatus? = nil) -> String? {
            do {
                _ = try UpgradeFlow(to: target, survey: survey, status: status ?? healthy, model: model)
                return nil
            } catch { return error.description }
        }
        #expect(refusal(survey(), to: 13)?.contains("--to 13 is not newer than the running PostgreSQL 13") == true)
        #expect(
            refusal(survey(major: 15))?.contains("10.213.0.11 runs PostgreSQL 15, the inventory says 13") == true)
        #expect(refusal(survey(prepared: 2))?.contains("2 prepared transaction(s) wait on 10.213.0.11") == true)
        #expect(refusal(survey(tablespaces: 1))?.contains("1 tablespace(s) besides pg_default and pg_global") == true)
        let lagging = try SwitchoverFlowTests().status([
            ("10.213.0.12", "sync_standby", "streaming", 3, 0), ("10.213.0.13", "replica", "streaming", 3, 50 << 20),
        ])
        #expect(refusal(survey(), status: lagging)?.contains("10.213.0.13 is 52428800 bytes behind") == true)
        #expect(refusal(survey(free: 100 << 20))?.contains("MiB free beside its data directory") == true)
        #expect(
            refusal(survey(planted: UpgradePlays.pgUpgradeLog))?.contains(
                "10.213.0.13: /var/log/postgresql/keel-pg_upgrade.log is a link; keel upgrade writes it as postgres")
                == true)
        // The probe looks for one where the upgrade writes as postgres.
        #expect(
            UpgradeSurvey.probe(model, member: "10.213.0.13", isLeader: false).text.contains(
                "[ ! -L /var/log/postgresql/keel-pg_upgrade.log ] || echo planted=/var/log/postgresql/keel-pg_upgrade.log"
            ))
        #expect(refusal(survey(), to: 19)?.contains("PostgreSQL 19 is not a release Keel can install here") == true)
        #expect(refusal(survey()) == nil)
    }

    @Test("the plan: the first stage, the stops, pg_upgrade --link, the point of no return, clones, backups")
    func plan() throws {
        let model = try model()
        let flow = try UpgradeFlow(
            to: 15, survey: survey(), status: try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy),
            model: model)
        let plan = flow.plan(model) ?? ""
        #expect(plan.hasPrefix("upgrade will, on cluster pg-lab (PostgreSQL 13 → 15):"), "\(plan)")
        #expect(plan.contains("postgresql-15 and its client installed beside 13"), "\(plan)")
        #expect(plan.contains("every extension (pg_stat_statements) available in 15"), "\(plan)")
        #expect(plan.contains("a new cluster initialized in /var/lib/postgresql/15/main"), "\(plan)")
        #expect(plan.contains("PgBouncer paused on 10.213.0.14, 10.213.0.15"), "\(plan)")
        #expect(plan.contains("THE POINT OF NO RETURN: until here, keel upgrade --rollback"), "\(plan)")
        #expect(plan.contains("10.213.0.12, 10.213.0.13 cloned afresh from 10.213.0.11"), "\(plan)")
        #expect(flow.confirmations == [.clusterName])
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "postgresql 15 installed on 10.213.0.11,10.213.0.12,10.213.0.13", "pg_upgrade --check on 10.213.0.11",
                "upgrade begun on 10.213.0.11,10.213.0.12,10.213.0.13",
                "no long transaction on the leader on 10.213.0.11",
                "patroni stopped on the replicas on 10.213.0.12,10.213.0.13",
                "pgbouncer paused on 10.213.0.14,10.213.0.15", "leader stopped on 10.213.0.11",
                "leader upgraded on 10.213.0.11",
                "configuration for postgresql 15 on 10.213.0.11,10.213.0.12,10.213.0.13",
                "new leader on 10.213.0.11", "pgbouncer resumed on 10.213.0.14,10.213.0.15",
                "replicas cloned from the new leader on 10.213.0.12,10.213.0.13",
                "statistics rebuilt on 10.213.0.11",
                "cluster configuration on 10.213.0.11,10.213.0.12,10.213.0.13",
                "upgrade finished on 10.213.0.11,10.213.0.12,10.213.0.13",
                "members in service on 10.213.0.11,10.213.0.12,10.213.0.13",
            ])
    }

    @Test("an unfinished upgrade resumes, or rolls back until its new leader began to start")
    func unfinished() throws {
        let model = try model()
        let plan = UpgradePlan(
            cluster: "pg-lab", from: 13, to: 15, leader: "10.213.0.11", planned: Date(timeIntervalSince1970: 1e9))
        let killed = try Self.record(plan, "begun: stopped", "done: stopped", "begun: upgraded")
        #expect(UpgradePlan.recorded("== upgrade\nid: \(plan.id)\n\(JournalRecord.encode(plan))\n")?.plan == plan)
        let rollback = try UpgradeFlow(resuming: plan, done: killed, rollback: true, model: model)
        #expect(rollback.mode == .rollback(done: ["stopped"]))
        #expect(
            rollback.playbook(model, carrying: CarriedSoftware()).plays.map(\.name) == [
                "configuration for postgresql 13", "old leader back", "pgbouncer resumed", "replicas back",
                "upgrade rolled back", "members in service",
            ])
        let resumed = try UpgradeFlow(resuming: plan, done: killed, rollback: false, model: model)
        #expect(resumed.plan(model)?.contains("It was begun (\(plan.id)): resuming after stopped") == true)
        let started = try Self.record(plan, "done: upgraded", "done: keys-reset", "begun: started")
        #expect(throws: FlowError.self) { try UpgradeFlow(resuming: plan, done: started, rollback: true, model: model) }
        #expect(throws: FlowError.self) {
            try UpgradeFlow(resuming: plan, done: killed, rollback: false, model: try self.model(15))
        }
    }

    @Test(
        "--keep-replica: a replica of the cluster only; it streams to the leader's last checkpoint, stays out until --finish, and a rollback past the point of no return starts the old release from it"
    )
    func keptReplica() throws {
        let model = try model()
        let healthy = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        #expect(throws: FlowError.self) {
            try UpgradeFlow(to: 15, keeping: "10.213.0.11", survey: survey(), status: healthy, model: model)
        }
        #expect(throws: FlowError.self) {
            try UpgradeFlow(to: 15, keeping: "10.213.0.99", survey: survey(), status: healthy, model: model)
        }
        let flow = try UpgradeFlow(to: 15, keeping: "10.213.0.13", survey: survey(), status: healthy, model: model)
        let text = flow.plan(model) ?? ""
        #expect(
            text.contains("stopped on 10.213.0.13, kept: its postgresql 13 streams until the leader stops"), "\(text)")
        #expect(text.contains("the cluster runs on 2 members"), "\(text)")
        #expect(text.contains("LOSING EVERY WRITE MADE ON 15"), "\(text)")
        #expect(text.contains("    10.213.0.12 cloned afresh from 10.213.0.11"), "\(text)")
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" }.dropFirst(2)
                == [
                    "upgrade begun on 10.213.0.11,10.213.0.12,10.213.0.13",
                    "no long transaction on the leader on 10.213.0.11", "patroni paused on 10.213.0.11",
                    "kept replica held on 10.213.0.13", "patroni stopped on the replicas on 10.213.0.12",
                    "pgbouncer paused on 10.213.0.14,10.213.0.15", "leader stopped on 10.213.0.11",
                    "kept replica stopped on 10.213.0.13", "leader upgraded on 10.213.0.11",
                    "configuration for postgresql 15 on 10.213.0.11,10.213.0.12,10.213.0.13",
                    "new leader on 10.213.0.11", "pgbouncer resumed on 10.213.0.14,10.213.0.15",
                    "replicas cloned from the new leader on 10.213.0.12", "statistics rebuilt on 10.213.0.11",
                    "cluster configuration on 10.213.0.11,10.213.0.12",
                    "upgrade finished on 10.213.0.11,10.213.0.12,10.213.0.13",
                    "members in service on 10.213.0.11,10.213.0.12",
                ])

        let plan = flow.plan
        #expect(
            UpgradePlan.recorded("== upgrade\nid: \(plan.id)\n\(JournalRecord.encode(plan))\n")?.plan.kept
                == "10.213.0.13")
        let started = try Self.record(plan, "done: upgraded", "done: keys-reset", "begun: started")
        let kept = try Self.record(plan, "done: held", "done: kept")
        #expect(throws: FlowError.self) {
            try UpgradeFlow(resuming: plan, done: started, kept: kept, rollback: false, finish: true, model: model)
        }
        let back = try UpgradeFlow(resuming: plan, done: started, kept: kept, rollback: true, model: model)
        #expect(back.mode == .rollbackFromKept)
        #expect(back.plan(model)?.contains("EVERY WRITE MADE ON POSTGRESQL 15 IS LOST") == true)
        #expect(
            back.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "postgresql 15 stopped on 10.213.0.11,10.213.0.12",
                "configuration for postgresql 13 on 10.213.0.11,10.213.0.12,10.213.0.13",
                "old release back from the kept replica on 10.213.0.13",
                "members cloned from the kept replica on 10.213.0.11,10.213.0.12",
                "upgrade rolled back on 10.213.0.11,10.213.0.12,10.213.0.13",
                "members in service on 10.213.0.11,10.213.0.12,10.213.0.13",
            ])
        let awaiting = try Self.record(plan, "done: started", "done: analyzed", "done: awaiting-finish")
        let finish = try UpgradeFlow(
            resuming: plan, done: awaiting, kept: kept, rollback: false, finish: true, model: model)
        #expect(finish.mode == .finish)
        #expect(
            finish.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "replicas cloned from the new leader on 10.213.0.13",
                "upgrade finished on 10.213.0.11,10.213.0.12,10.213.0.13",
                "members in service on 10.213.0.11,10.213.0.12,10.213.0.13",
            ])
        let cloning = try Self.record(plan, "done: held", "done: kept", "begun: cloned")
        #expect(throws: FlowError.self) {
            try UpgradeFlow(resuming: plan, done: awaiting, kept: cloning, rollback: true, model: model)
        }
    }

    @Test("a finished upgrade's old release removed, once the inventory names the new one")
    func cleanup() throws {
        let plan = UpgradePlan(
            cluster: "pg-lab", from: 13, to: 15, leader: "10.213.0.11", planned: Date(timeIntervalSince1970: 1e9))
        #expect(throws: FlowError.self) { try UpgradeFlow(cleaningUp: plan, model: try self.model(13)) }
        let model = try model(15)
        let flow = try UpgradeFlow(cleaningUp: plan, model: model)
        let text = flow.plan(model) ?? ""
        #expect(
            text.contains("/var/lib/postgresql/13/main deleted")
                && text.contains("postgresql-13 and postgresql-client-13 removed"), "\(text)")
        let (_, directory) = try ClusterModelTests().load()
        let host = try ClusterModelTests.host("10.213.0.12", directory)
        let steps = try flow.playbook(model, carrying: CarriedSoftware()).plays.flatMap { try $0.body(host) }.map(
            \.resource)
        #expect(
            steps.map(\.description) == [
                "/var/lib/postgresql/13/main deleted", "package postgresql-13 postgresql-client-13",
            ])
        #expect((steps.last as? Package)?.state == .absent)
    }

    @Test("the upgraded cluster's own data directory, and a path without the version refused")
    func dataDirectory() throws {
        let model = try model()
        #expect(try model.upgraded(to: 15).dataDirectory == "/var/lib/postgresql/15/main")
        #expect(try model.upgraded(to: 15).binDirectory == "/usr/lib/postgresql/15/bin")
        var fixed = model
        fixed.dataDirectory = "/pgdata/main"
        #expect(throws: FlowError.self) { try fixed.upgraded(to: 15) }
    }

    @Test("an extension without its files for the new release stops the first stage, naming it")
    func extensions() throws {
        let (_, directory) = try ClusterModelTests().load()
        let host = try ClusterModelTests.host("10.213.0.11", directory)
        let check = ExtensionsAvailable(version: 15, extensions: ["pg_stat_statements", "postgis"])
        #expect(
            check.probe.contains("[ -e /usr/share/postgresql/15/extension/postgis.control ] || echo missing=postgis"))
        #expect(try check.changes(from: ProbeOutput(text: ""), on: host).isEmpty)
        #expect(try check.changes(from: ProbeOutput(text: "absent"), on: host).isEmpty, "not installed yet: --check")
        #expect(throws: ResourceError.self) { try check.changes(from: ProbeOutput(text: "missing=postgis"), on: host) }
    }

    @Test("pg_upgrade --check on a schema-only copy: passes, waits for the new release, or stops naming what it found")
    func schemaCopyChecked() throws {
        let (_, directory) = try ClusterModelTests().load()
        let host = try ClusterModelTests.host("10.213.0.11", directory)
        let model = try model()
        let check = UpgradeCompatible(model: model, upgraded: try model.upgraded(to: 15))
        #expect(check.probe.contains("pg_dumpall --schema-only --no-role-passwords -p 5432"), "\(check.probe)")
        #expect(check.probe.contains("/usr/lib/postgresql/15/bin/pg_upgrade --check -b /usr/lib/postgresql/13/bin"))
        for verdict in ["upgrade-check=ok", "upgrade-check=absent", "upgrade-check=stopped"] {
            #expect(try check.changes(from: ProbeOutput(text: verdict), on: host).isEmpty, "\(verdict)")
        }
        #expect {
            try check.changes(
                from: ProbeOutput(text: "upgrade-check=failed\nYour installation contains \"reg*\" data types"),
                on: host)
        } throws: { error in
            "\(error)".contains("cannot be upgraded to PostgreSQL 15 as it is:\nYour installation contains")
        }
    }
}
