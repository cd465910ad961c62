import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("restore: the target read, the plan chosen or refused before anything stops, the progress each stage keeps")
struct RestoreFlowTests {
    private func model() throws -> ClusterModel { try ClusterModelTests().withRepository() }

    private static func moment(_ text: String) throws -> RestoreTarget.Moment { try RestoreTarget.Moment(text) }

    /// Backups finished at 1000 (full), 2000 (diff) and 3000 (full) seconds after 1970.
    private static let backups = BackupStatus(
        repository: "10.213.0.16", stanza: "pg-lab", status: "ok",
        backups: [
            .init(label: "F1", type: "full", finished: 1000, size: 1, systemID: "7300000000000000001"),
            .init(label: "D2", type: "diff", finished: 2000, size: 1, systemID: "7300000000000000001"),
            .init(label: "F3", type: "full", finished: 3000, size: 1, systemID: "7300000000000000001"),
        ])

    private func plan(
        _ target: RestoreTarget, backups: BackupStatus? = backups, archivedUntil: Double? = 5000,
        systemID: String? = "7300000000000000001"
    ) throws -> RestorePlan {
        try RestorePlan(
            try model(), target: target, backups: backups,
            archivedUntil: archivedUntil.map { Date(timeIntervalSince1970: $0) }, timeline: 3, leader: "10.213.0.12",
            systemID: systemID)
    }

    private func refusal(
        _ target: RestoreTarget, backups: BackupStatus? = backups, archivedUntil: Double? = 5000,
        systemID: String? = "7300000000000000001"
    ) throws -> String? {
        do {
            _ = try plan(target, backups: backups, archivedUntil: archivedUntil, systemID: systemID)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a moment needs its time zone; it is given to PostgreSQL in UTC with microseconds")
    func moments() throws {
        #expect(try Self.moment("2026-11-22 14:02:16+00").utc == "2026-11-22 14:02:16.000000+00")
        #expect(try Self.moment("2026-11-22T15:02:16.25+01:00").utc == "2026-11-22 14:02:16.250000+00")
        #expect(try Self.moment("2026-11-22 09:02:16-0500").utc == "2026-11-22 14:02:16.000000+00")
        #expect(try Self.moment("2026-11-22 14:02:16Z").date == Date(timeIntervalSince1970: 1_795_356_136))
        for bad in [
            "2026-11-22 14:02:16", "2026-02-30 10:00:00+00", "2026-11-22 25:00:00Z", "yesterday", "'; rm -rf /",
        ] {
            #expect(throws: FlowError.self, "\(bad)") { try Self.moment(bad) }
        }
    }

    @Test("the set: the newest finished before the target, the one named, or the newest; refusals name why")
    func chosenSet() throws {
        #expect(try plan(.time(Self.moment("1970-01-01 00:41:40Z"))).set.label == "D2")  // 2500 s
        #expect(try plan(.backupSet("F1", nil)).set.label == "F1")
        #expect(try plan(.latest).set.label == "F3")
        let plan = try plan(.time(Self.moment("1970-01-01 00:41:40Z")))
        #expect(plan.restoreHost == "10.213.0.12" && plan.otherMembers == ["10.213.0.11", "10.213.0.13"])
        #expect(plan.text.contains("REPLACE the data directory of 10.213.0.12"), "\(plan.text)")
        #expect(plan.text.contains("keys in etcd (prefix /service/pg-lab/)"), "\(plan.text)")
        #expect(
            plan.text.contains(
                "from stanza pg-lab of 10.213.0.16, backup set D2 (diff, finished 1970-01-01T00:33:20Z, database "
                    + "system 7300000000000000001)"), "\(plan.text)")
        // Another cluster's stanza (a shared repository, a copied inventory) never replaces the members' data.
        #expect(
            try refusal(.latest, systemID: "7300000000000000002")?.contains(
                "backup set F3 of stanza pg-lab holds database system 7300000000000000001, but the members' data is "
                    + "system 7300000000000000002") == true)
        #expect(try self.plan(.latest, systemID: nil).set.label == "F3", "members without data: nothing to compare")

        #expect(
            try refusal(.time(Self.moment("1970-01-01 00:10:00Z")))?.contains("is before the oldest backup, F1") == true
        )
        #expect(
            try refusal(.time(Self.moment("1970-01-01 02:00:00Z")))?.contains("is after the leader's clock") == true)
        #expect(try refusal(.backupSet("F9", nil))?.contains("has no backup set F9") == true)
        #expect(
            try refusal(.backupSet("F3", Self.moment("1970-01-01 00:41:40Z")))?.contains(
                "before backup set F3 finished")
                == true)
        var failing = Self.backups
        failing.status = "error (missing stanza path)"
        #expect(try refusal(.latest, backups: failing)?.contains("reports 'error (missing stanza path)'") == true)
        failing = Self.backups
        failing.backups = []
        #expect(try refusal(.latest, backups: failing)?.contains("holds no backup") == true)
        #expect(try refusal(.latest, backups: nil)?.contains("could not be read") == true)
        #expect(
            try refusal(.latest, archivedUntil: nil)?.contains("how far the WAL archive reaches is unknown") == true)
    }

    @Test("pgBackRest's options for each target; recovery follows the newest timeline")
    func options() throws {
        #expect(
            try RestoreTarget.time(Self.moment("2026-11-22 14:02:16+00")).restoreOptions(set: "F1")
                == "--set=F1 --type=time --target='2026-11-22 14:02:16.000000+00' --target-action=promote")
        #expect(
            RestoreTarget.backupSet("F1", nil).restoreOptions(set: "F1")
                == "--set=F1 --type=immediate --target-action=promote")
        #expect(RestoreTarget.latest.restoreOptions(set: "F3") == "--set=F3 --type=default")
    }

    @Test("the progress file: read back with its plan and stages; another plan's unfinished restore is never replaced")
    func progress() throws {
        let plan = try plan(.backupSet("F1", nil))
        let header = Self.header(plan)
        let read = try #require(
            RestoreProgress.read("== restore\n" + header + "\ndone: stopped\ndone: restored"))
        #expect(read.plan.id == plan.id && read.stages == ["stopped", "restored"] && !read.isFinished)
        #expect(Self.header(read.plan) == header, "the plan reads back as it was written")
        #expect(RestoreProgress.read("") == nil && RestoreProgress.read("== restore\nid: x\n{}") == nil)
        #expect(RestoreProgress.read("== update\n" + header) == nil, "another flow's record is not a restore")

        let (_, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let other = try self.plan(.latest)
        let unfinished = ProbeOutput(text: Self.header(other) + "\ndone: stopped")
        let begun = plan.begun(replacing: nil)
        #expect(throws: ResourceError.self) { try begun.changes(from: unfinished, on: context) }
        let finished = ProbeOutput(text: unfinished.text + "\ndone: finished")
        #expect(try begun.changes(from: finished, on: context).count == 1)
        #expect(try begun.changes(from: ProbeOutput(text: header), on: context).isEmpty)

        let stage = plan.stage("restored", "restored", command: "true")
        #expect(try stage.changes(from: ProbeOutput(text: "done"), on: context).isEmpty)
        #expect(try stage.changes(from: ProbeOutput(text: ""), on: context).count == 1)
    }

    @Test("the flow: replicas stopped before the leader, the leader restored before the others are cloned from it")
    func plays() throws {
        let model = try model()
        let flow = RestoreFlow(plan: try plan(.latest))
        let plays = flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" }
        #expect(
            plays == [
                "restore begun on 10.213.0.11,10.213.0.12,10.213.0.13,10.213.0.16",
                "patroni stopped on the replicas on 10.213.0.11,10.213.0.13",
                "patroni stopped on the leader on 10.213.0.12", "restored from the repository on 10.213.0.12",
                "cluster configuration after the restore on 10.213.0.12",
                "replicas cloned from the restored leader on 10.213.0.11,10.213.0.13",
                "roles, databases, extensions on postgres_cluster",
                "pgbouncer on 10.213.0.11,10.213.0.12,10.213.0.13",
                "pgbouncer restarts on 10.213.0.11,10.213.0.12,10.213.0.13",
                "members in service on 10.213.0.11,10.213.0.12,10.213.0.13",
                "a full backup of the new timeline on 10.213.0.16",
                "restore finished on 10.213.0.11,10.213.0.12,10.213.0.13,10.213.0.16",
            ], "\(plays)")
        let recovery = RestoreRecovery(model: model, plan: flow.plan).steps.compactMap { $0.resource as? JournalStage }
        #expect(recovery.map(\.stage) == ["restored", "promoted", "dcs-cleared", "leading"])
        #expect(recovery[0].command.text.contains("--delta --archive-mode=preserve"))
        #expect(recovery[2].command.text.contains("del --prefix /service/pg-lab/"))
    }
}

extension RestoreFlowTests {
    /// The first two lines of `plan`'s record: its id and its plan.
    static func header(_ plan: RestorePlan) -> String { "id: \(plan.id)\n" + JournalRecord.encode(plan) }

    /// A record of `plan` with `lines` after its header.
    private func record(_ plan: RestorePlan, _ lines: String...) throws -> RestoreProgress {
        try #require(RestoreProgress.read(([Self.header(plan)] + lines).joined(separator: "\n").prefixed))
    }

    private func decision(
        _ records: [String: RestoreProgress], _ target: RestoreTarget, again: Bool = false, abandon: Bool = false
    ) -> String {
        do {
            switch try RestoreJournal(records: records, cluster: "pg-lab").decide(
                target: target, again: again, abandon: abandon)
            {
            case .new: return "new"
            case .finished(let progress): return "finished \(progress.plan.target.description)"
            case .resume(let progress): return "resume after \(progress.stages.joined(separator: ","))"
            case .retarget(let progress): return "retarget \(progress.plan.target.description)"
            case .abandon(let progress): return "abandon after \(progress.stages.joined(separator: ","))"
            }
        } catch {
            return "refused: \(error.description)"
        }
    }

    @Test("one journal for the cluster: a finished restore is not run again, even where a host lost its record")
    func journalFinished() throws {
        let done = try plan(.latest)
        let finished = try record(done, "done: stopped", "done: finished")
        // 10.213.0.12 (the restore host) was replaced since: it has no record; the others say finished.
        let records = ["10.213.0.11": finished, "10.213.0.13": finished]
        #expect(decision(records, .latest) == "finished \(RestoreTarget.latest.description)")
        #expect(decision(records, .latest, again: true) == "new")
        #expect(decision(records, .backupSet("F1", nil)) == "new")
        #expect(decision([:], .latest) == "new")
        // Another cluster's record (a removed cluster's, kept on the repository host) is not this cluster's.
        let elsewhere = try #require(
            RestoreProgress.read(
                (Self.header(done) + "\ndone: finished").replacingOccurrences(of: "pg-lab", with: "old").prefixed))
        #expect(elsewhere.plan.cluster == "old")
        #expect(decision(["10.213.0.16": elsewhere], .latest) == "new")
        #expect(decision(records, .latest, abandon: true).hasPrefix("refused: no restore is under way"))
    }

    @Test(
        "an unfinished restore: resumed to its target, retargeted before its data serves, abandoned before it is replaced"
    )
    func journalUnfinished() throws {
        let old = try plan(.latest)
        let stopped = try record(old, "done: stopped")
        let restoring = try record(old, "done: stopped", "begun: restored")
        let promotedFailed = try record(old, "done: stopped", "done: restored", "begun: promoted")
        let leading = try record(
            old, "done: stopped", "done: restored", "done: promoted", "done: dcs-cleared", "done: leading")
        let restoreHost = old.restoreHost
        let other = "10.213.0.13"
        #expect(decision([restoreHost: stopped, other: stopped], .latest) == "resume after stopped")
        #expect(decision([restoreHost: promotedFailed, other: stopped], .latest) == "resume after stopped,restored")
        // A WAL gap stops recovery short of the target: another target is allowed, and so is abandoning before the
        // data is touched.
        let newTarget = RestoreTarget.backupSet("F1", nil)
        #expect(
            decision([restoreHost: promotedFailed, other: stopped], newTarget)
                == "retarget \(RestoreTarget.latest.description)")
        #expect(decision([restoreHost: stopped, other: stopped], newTarget, abandon: true) == "abandon after stopped")
        #expect(
            decision([restoreHost: restoring, other: stopped], .latest, abandon: true).hasPrefix(
                "refused: the unfinished \(old.id) has begun replacing"))
        #expect(
            decision([restoreHost: leading, other: stopped], newTarget).hasPrefix(
                "refused: the unfinished \(old.id) already serves"))
        // The restore host lost its record: nothing is resumed or abandoned blindly.
        #expect(
            decision([other: stopped], .latest).hasPrefix(
                "refused: \(restoreHost), the host restored by the unfinished"))
        // An abandoned restore is over.
        let abandoned = try record(old, "done: stopped", "done: abandoned")
        #expect(decision([restoreHost: abandoned, other: abandoned], .latest) == "new")
    }

    @Test("a retarget replaces the unfinished restore's record; a stage is recorded as begun before it runs")
    func journalRecords() throws {
        let old = try plan(.latest)
        let new = try plan(.backupSet("F1", nil))
        let (_, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let unfinished = ProbeOutput(text: Self.header(old) + "\ndone: stopped")
        #expect(throws: ResourceError.self) { try new.begun(replacing: nil).changes(from: unfinished, on: context) }
        #expect(try new.begun(replacing: old.id).changes(from: unfinished, on: context).count == 1)
        let stage = new.stage("restored", "restored", command: "true")
        let command = try #require(try stage.changes(from: ProbeOutput(text: ""), on: context).first?.actions.first)
        #expect(command.description.hasPrefix("echo 'begun: restored' >> /var/lib/keel/journal/restore && "))
        let flow = RestoreFlow(plan: new, mode: .abandon).playbook(try model(), carrying: CarriedSoftware())
        #expect(flow.plays.map(\.name) == ["restore abandoned", "members in service"])
        #expect(RestoreFlow(plan: new, mode: .nothing).playbook(try model(), carrying: CarriedSoftware()).plays.isEmpty)
    }
}

extension RestoreFlowTests {
    @Test("the survey writes nothing; the leader's stop first switches its WAL and waits for the archiver")
    func leaderArchivesAsItStops() throws {
        let model = try model()
        let playbook = RestoreFlow(plan: try plan(.latest)).playbook(model, carrying: CarriedSoftware())
        let leaderPlay = try #require(playbook.plays.first { $0.name == "patroni stopped on the leader" })
        let (_, directory) = try ClusterModelTests().load()
        let host = HostContext(
            name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let stage = try #require(try leaderPlay.body(host).first?.resource as? JournalStage)
        #expect(stage.summary.hasPrefix("WAL archived, "))
        // Run with a stand-in psql: the leader commits, switches, and waits until its segment is archived.
        let bin = directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try Shell.writeExecutable(
            bin + "/runuser",
            """
            #!/bin/sh
            sql=$(cat); echo "$sql" >> \(directory)/sql.log
            case "$sql" in
              *pg_is_in_recovery*) echo f ;;
              *txid_current*) echo 1 ;;
              *pg_switch_wal*) echo 000000010000000000000005 ;;
              *last_archived_wal*) n=$(grep -c last_archived_wal \(directory)/sql.log); [ "$n" -ge 2 ] && echo t || echo f ;;
            esac

            """)
        let command = stage.command.text.components(separatedBy: " && systemctl disable")[0]
        let result = try Shell.capture("/bin/sh", ["-c", command], environment: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.output)")
        let log = try String(contentsOfFile: directory + "/sql.log", encoding: .utf8)
        #expect(log.contains("txid_current") && log.contains("pg_switch_wal()"))
        #expect(log.contains("last_archived_wal >= '000000010000000000000005'"), "\(log)")
        let replica = try #require(playbook.plays.first { $0.name == "patroni stopped on the replicas" })
        let replicaStage = try #require(try replica.body(host).first?.resource as? JournalStage)
        #expect(!replicaStage.command.text.contains("pg_switch_wal"))
    }
}

extension String {
    /// The text as ``JournalRecord/readAll`` prints a restore's record.
    fileprivate var prefixed: String { "== restore\n" + self }
}
