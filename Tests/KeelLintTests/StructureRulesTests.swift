import Foundation
import KeelLint
import Testing

/// Each structure rule finds a violation planted in a tree of its own, and passes the tree without it; the
/// repository itself breaks none.
@Suite("the project's structure rules")
struct StructureRulesTests {
    /// A new tree holding `files` (path → text).
    func tree(_ files: [String: String]) throws -> SourceTree {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-lint-\(UUID().uuidString)").path
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return SourceTree(root: root)
    }

    func lines(_ count: Int) -> String { String(repeating: "let x = 1\n", count: count) }

    @Test("a file over 400 lines, and a Model/ file over 250, is reported; one at the limit is not")
    func length() throws {
        let planted = try tree([
            "Sources/A/Long.swift": lines(401), "Sources/A/Fine.swift": lines(400),
            "playbooks/Cluster/Model/Wide.swift": lines(251), "playbooks/Cluster/Flows/Wide.swift": lines(251),
        ])
        #expect(
            FileLengthRule(limit: 400, folders: ["Sources", "playbooks"]).violations(in: planted).map(\.path)
                == ["Sources/A/Long.swift"])
        #expect(
            FileLengthRule(limit: 250, folders: ["playbooks"], narrowedTo: "/Model/").violations(in: planted)
                .map(\.description) == [
                    "playbooks/Cluster/Model/Wide.swift:0: no /Model/ file over 250 lines: 251 lines: split it, one concept to a file"
                ])
    }

    @Test("a $(seq loop and a KeelSSH import above the engine are reported where they are")
    func forbiddenLines() throws {
        let planted = try tree([
            "playbooks/Cluster/Upgrade/Wait.swift": "let a = 1\nlet wait = \"for i in $(seq 10); do sleep 1; done\"\n",
            "Sources/keel/Ping.swift": "import ArgumentParser\nimport KeelSSH\n",
            "Sources/Keel/Fleet.swift": "import KeelSSH\n",
        ])
        let rules = ProjectRules.all.filter { $0.name.hasPrefix("no seq-counted loop") || $0.name.contains("KeelSSH") }
        #expect(
            rules.flatMap { $0.violations(in: planted) }.map { "\($0.path):\($0.line)" } == [
                "playbooks/Cluster/Upgrade/Wait.swift:2", "Sources/keel/Ping.swift:2",
            ])
    }

    @Test("a port of ClusterPorts written as a number elsewhere is reported; a longer number holding it is not")
    func ports() throws {
        let planted = try tree([
            "playbooks/Cluster/Model/ClusterPorts.swift": "enum ClusterPorts {\n    static let etcdClient = 2379\n}\n",
            "playbooks/Cluster/Etcd/EtcdRole.swift": "let url = \"https://h:2379\"\nlet other = 52379 + 0x2379ab\n",
        ])
        let rule = PortsInOneFileRule(
            portsFile: "playbooks/Cluster/Model/ClusterPorts.swift", folders: ["playbooks/Cluster"])
        #expect(
            rule.violations(in: planted).map(\.description) == [
                "playbooks/Cluster/Etcd/EtcdRole.swift:1: the cluster's ports in one file: 2379 is ClusterPorts.etcdClient: name it so"
            ])
    }

    @Test("a configuration path written in a second file is reported there")
    func configurationPaths() throws {
        let planted = try tree([
            "playbooks/Cluster/Patroni/PatroniRole.swift": "static let file = \"/etc/patroni/patroni.yml\"\n",
            "playbooks/Cluster/Status/Status.swift": "let read = \"cat \" + \"/etc/patroni/patroni.yml\"\n",
            "playbooks/Cluster/Patroni/Other.swift": "let unit = \"/etc/systemd/system/x.service\"\n",
        ])
        #expect(
            ConfigurationPathRule(folders: ["playbooks"]).violations(in: planted).map { "\($0.path):\($0.line)" }
                == ["playbooks/Cluster/Status/Status.swift:1"])
    }

    @Test("two folders naming each other's types are reported; one way is not")
    func folderCycles() throws {
        let oneWay = [
            "playbooks/Cluster/Model/Model.swift": "public struct ClusterModel {}\n",
            "playbooks/Cluster/Flows/Deploy.swift": "struct DeployFlow { let model: ClusterModel }\n",
        ]
        let rule = FolderCycleRule(parent: "playbooks/Cluster")
        #expect(rule.violations(in: try tree(oneWay)).isEmpty)
        var back = oneWay
        back["playbooks/Cluster/Model/Carried.swift"] =
            "extension ClusterModel {\n    // DeployFlow in a comment is no use\n    var flow: DeployFlow? { nil }\n}\n"
        let found = rule.violations(in: try tree(back))
        #expect(
            found.count == 1
                && found[0].message.contains(
                    "Flows/ names Model/'s ClusterModel, and Model/ names Flows/'s DeployFlow (playbooks/Cluster/Model/Carried.swift:3)"
                ), "\(found)")
    }

    @Test("the layout table names every folder of Sources/ and playbooks/Cluster/, and only paths that exist")
    func layout() throws {
        let readme =
            "# K\n\n## Layout\n\n| Path | What |\n|---|---|\n| `Sources/Keel` | the engine |\n| `playbooks/Cluster/` | `Model/`, `Flows/` |\n| `Gone/` | old |\n\n## Next\n| `Sources/Other` | not the table |\n"
        let planted = try tree([
            "README.md": readme, "Sources/Keel/a.swift": "", "Sources/KeelLint/a.swift": "",
            "playbooks/Cluster/Model/a.swift": "", "playbooks/Cluster/Flows/a.swift": "",
            "playbooks/Cluster/TLS/a.swift": "",
        ])
        #expect(
            LayoutTableRule(document: "README.md", heading: "## Layout").violations(in: planted).map(\.message) == [
                "Gone/ does not exist", "no row for Sources/KeelLint",
                "playbooks/Cluster/TLS/ is not named in the table",
            ])
    }

    @Test("the repository breaks no rule")
    func repository() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let violations = ProjectRules.violations(in: SourceTree(root: root))
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))")
    }
}
