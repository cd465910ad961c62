import Foundation
import Keel
import Testing

@testable import Playbooks

/// Root's shell never opens, makes, moves, reads or removes a path postgres controls (its home, the data
/// directories, `/var/log/postgresql`, a scratch folder given to it): a link postgres planted there would lead root
/// wherever postgres chose (S4-H1). Every command of the upgrade's and the restore's steps is scanned, on every host.
@Suite("postgres's paths are touched as postgres")
struct PostgresPathsTests {
    /// What root's shell does with postgres's paths in `text`: each offending simple command.
    static func findings(_ text: String) -> [String] {
        // A scratch folder's contents are postgres's; root makes the folder itself in a folder of its own.
        let postgres = #"("?)(/var/lib/postgresql|/var/log/postgresql|\$scratch/)"#
        let redirection = try! Regex(#"(<|>>?|[0-9]>>?)\s*"# + postgres)
        let pathWord = try! Regex(postgres)
        let touching: Set = [
            "chown", "chmod", "install", "touch", "mv", "rm", "tail", "grep", "head", "cat", "cp", "find", "ln",
            "mkdir", "python3", "sed", "tee", "pg_controldata",
        ]
        let separators = try! Regex(#"&&|\|\||[;|\n{}()]|\bthen\b|\belse\b|\bdo\b|\bfi\b|\bdone\b"#)
        return rootParts(text).split(separator: separators).compactMap { part in
            let command = part.trimmingCharacters(in: .whitespaces)
            let words = command.split(separator: " ")
            let asPostgres = words.starts(with: ["runuser", "-u", "postgres", "--"])
            let program = words.first.map { String($0.split(separator: "/").last ?? $0) } ?? ""
            if command.contains(redirection)
                || (!asPostgres && touching.contains(program) && command.contains(pathWord))
            {
                return command
            }
            return nil
        }
    }

    /// `text` without what `runuser -u postgres -- sh -c '…'` hands to postgres's own shell.
    static func rootParts(_ text: String) -> String {
        let marker = "runuser -u postgres -- sh -c "
        var rest = Substring(text)
        var kept = ""
        while let start = rest.range(of: marker) {
            kept += rest[..<start.lowerBound] + "runuser -u postgres -- sh -c POSTGRES"
            var index = start.upperBound
            // One shell word of quoted parts: 'a'\''b'.
            while index < rest.endIndex {
                if rest[index] == "'" {
                    index =
                        rest[rest.index(after: index)...].firstIndex(of: "'").map { rest.index(after: $0) }
                        ?? rest.endIndex
                } else if rest[index] == "\\" {
                    index = rest.index(index, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex
                } else {
                    break
                }
            }
            rest = rest[index...]
        }
        return kept + rest
    }

    /// Every shell text `value` holds, however deep (a step's command, a stage's, a wait's).
    static func shellTexts(_ value: Any) -> [String] {
        if let command = value as? ShellCommand { return [command.text] }
        return Mirror(reflecting: value).children.flatMap { shellTexts($0.value) }
    }

    @Test("the scan finds what the upgrade and restore did as root before")
    func scanFindsTheOldForms() {
        for old in [
            "install -d -o postgres -g postgres -m 700 /var/lib/postgresql/16 /var/lib/postgresql/16/main",
            "python3 -c x < /var/lib/postgresql/13/main/patroni.dynamic.json > /var/lib/postgresql/13/main/patroni.dynamic.json.new",
            "runuser -u postgres -- pg_upgrade --link > /var/log/postgresql/keel-pg_upgrade.log 2>&1",
            "touch /var/lib/postgresql/15/main.upgrading",
            "runuser -u postgres -- pg_dumpall --schema-only > \"$scratch/schema.sql\"",
            "grep -q 'recovery stopping' /var/log/postgresql/keel-restore.log",
            "rm -rf /var/lib/postgresql/13/main",
        ] {
            #expect(!Self.findings(old).isEmpty, "\(old)")
        }
        #expect(Self.findings("runuser -u postgres -- sh -c 'touch /var/lib/postgresql/15/main.upgrading'").isEmpty)
        #expect(Self.findings("[ -e /var/lib/postgresql/15/main/PG_VERSION ] && systemctl start patroni").isEmpty)
    }

    @Test("no step of the upgrade (every mode) or the restore touches postgres's paths as root")
    func flows() throws {
        let (_, directory) = try ClusterModelTests().load()
        let upgrades = UpgradeFlowTests()
        let model = try upgrades.model()
        let healthy = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        let upgrade = try UpgradeFlow(
            to: 15, keeping: "10.213.0.13", survey: upgrades.survey(), status: healthy, model: model)
        let plan = upgrade.plan
        let killed = try UpgradeFlowTests.record(plan, "begun: stopped", "done: stopped", "begun: upgraded")
        let started = try UpgradeFlowTests.record(plan, "done: upgraded", "done: keys-reset", "begun: started")
        let awaiting = try UpgradeFlowTests.record(plan, "done: started", "done: analyzed", "done: awaiting-finish")
        let kept = try UpgradeFlowTests.record(plan, "done: held", "done: kept")
        var playbooks: [(String, Playbook)] = [
            ("upgrade", upgrade.playbook(model, carrying: CarriedSoftware())),
            (
                "rollback",
                try UpgradeFlow(resuming: plan, done: killed, rollback: true, model: model).playbook(
                    model, carrying: CarriedSoftware())
            ),
            (
                "rollback from the kept replica",
                try UpgradeFlow(resuming: plan, done: started, kept: kept, rollback: true, model: model).playbook(
                    model, carrying: CarriedSoftware())
            ),
            (
                "finish",
                try UpgradeFlow(
                    resuming: plan, done: awaiting, kept: kept, rollback: false, finish: true, model: model
                ).playbook(model, carrying: CarriedSoftware())
            ),
        ]
        let upgraded = try upgrades.model(15)
        playbooks.append(
            (
                "cleanup",
                try UpgradeFlow(cleaningUp: plan, model: upgraded).playbook(upgraded, carrying: CarriedSoftware())
            ))
        let restoring = try ClusterModelTests().withRepository()
        let restorePlan = try RestorePlan(
            restoring, target: .latest,
            backups: BackupStatus(
                repository: "10.213.0.16", stanza: "pg-lab", status: "ok",
                backups: [.init(label: "F1", type: "full", finished: 1000, size: 1)]),
            archivedUntil: Date(timeIntervalSince1970: 5000), timeline: 3, leader: "10.213.0.12", systemID: nil)
        playbooks.append(("restore", RestoreFlow(plan: restorePlan).playbook(restoring, carrying: CarriedSoftware())))
        var scanned = 0
        for (name, playbook) in playbooks {
            for host in restoring.allHosts {
                let context = try ClusterModelTests.host(host, directory)
                for play in playbook.plays {
                    for step in try play.body(context) {
                        for text in Self.shellTexts(step.resource) + [step.resource.probe] {
                            scanned += 1
                            let found = Self.findings(text)
                            #expect(found.isEmpty, "\(name), \(play.name) on \(host): \(found)")
                        }
                    }
                }
            }
        }
        #expect(scanned > 100, "\(scanned) commands scanned")
    }
}
