import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// The generated half of the reference catalogue, `ReferenceVariable+Published*.swift`: every variable of the
/// reference's files of every release, the file it comes from (the newest release's) and the fingerprints of its
/// published values; the variables of `common` (the reference's main file) in one, all others in the other. `scripts/reference-catalogue` writes it again from the files (`KEEL_WRITE_REFERENCE_CATALOGUE`);
/// otherwise this test fails when the checked-in file is not what the files give, so the two cannot drift.
@Suite("the reference catalogue is generated from the reference's files of every release")
struct ReferenceCatalogueTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("playbooks/Cluster/Model/Reference")

    /// The generated files: (name of the table, what it holds, whether it holds the variables of `common`).
    static let parts: [(table: String, holds: String, common: Bool)] = [
        ("Common", "the reference's main file, `common`", true),
        ("Elsewhere", "every other file: a role's defaults, `main`, `system`, `Debian` or `inventory`", false),
    ]

    /// Every release's files: (release, file, its variables); the inventories' host variables as file `inventory`.
    static func files() throws -> [(release: String, file: String, variables: [String: Variable])] {
        try ReferenceFiles.allReleases.flatMap { release in
            let varsFiles = try ReferenceFiles.variableFiles(release).compactMap {
                file -> (release: String, file: String, variables: [String: Variable])? in
                let text = try ReferenceFiles.text(release, file)
                // The comment-only files of a role (cron, mount) define nothing.
                guard text.split(separator: "\n").contains(where: { $0.first?.isLetter == true }) else { return nil }
                return (release, file, try variables(groupVars: text))
            }
            let inventory = try load(["inventory": try ReferenceFiles.inventoryWithHosts(release)], "inventory")
            let hostVariables = inventory.hostNames.map {
                host -> (release: String, file: String, variables: [String: Variable]) in
                (
                    release, "inventory",
                    inventory.variables(for: host).filter { !Inventory.magicVariables.contains($0.key) }
                )
            }
            return varsFiles + hostVariables
        }
    }

    /// `text` read as Keel reads a `group_vars/all.yml`.
    static func variables(groupVars text: String) throws -> [String: Variable] {
        try load(["hosts": "[all]\nh1\n", "group_vars/all.yml": text], "hosts").variables(for: "h1").filter {
            !Inventory.magicVariables.contains($0.key)
        }
    }

    /// The inventory `name` among `files` (path → text), written to a folder of its own.
    private static func load(_ files: [String: String], _ name: String) throws -> Inventory {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-reference-\(UUID().uuidString)")
        for (path, text) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        return try Inventory.load(path: directory.appendingPathComponent(name).path)
    }

    /// The generated files: their path and Swift source.
    static func generated() throws -> [(path: String, text: String)] {
        var origins: [String: String] = [:]
        var fingerprints: [String: Set<UInt64>] = [:]
        for (_, file, variables) in try files() {
            let origin = (file as NSString).lastPathComponent.replacingOccurrences(of: ".yml", with: "")
            for (name, variable) in variables {
                // The releases come oldest first: a name's origin is its newest file.
                origins[name] = origin
                fingerprints[name, default: []].insert(ReferenceVariable.fingerprint(variable.value))
            }
        }
        return parts.map { part in
            let entries = origins.keys.sorted().filter { (origins[$0] == "common") == part.common }.map { name in
                let values = fingerprints[name, default: []].sorted().map { "0x" + String($0, radix: 16) }
                let arguments = "\"\(origins[name] ?? "")\", [\(values.joined(separator: ", "))]"
                let line = "        \"\(name)\": Published(\(arguments)),"
                // As swift-format wraps a line over 120 characters.
                return line.count <= 120 ? line : "        \"\(name)\": Published(\n            \(arguments)),"
            }
            let text = """
                // Generated by scripts/reference-catalogue from postgresql_cluster's files of \
                \(ReferenceFiles.allReleases.joined(separator: ", ")): do not edit.

                extension ReferenceVariable {
                    /// The variables of \(part.holds), with the fingerprints of their published values.
                    static let published\(part.table): [String: Published] = [
                \(entries.joined(separator: "\n"))
                    ]
                }

                """
            return (folder.appendingPathComponent("ReferenceVariable+Published\(part.table).swift").path, text)
        }
    }

    @Test("the checked-in catalogue is what the reference's files give (scripts/reference-catalogue writes it)")
    func reproduced() throws {
        for (path, text) in try Self.generated() {
            if ProcessInfo.processInfo.environment["KEEL_WRITE_REFERENCE_CATALOGUE"] != nil {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            let checkedIn = try String(contentsOfFile: path, encoding: .utf8)
            #expect(checkedIn == text, "\(path): run scripts/reference-catalogue, then review its diff")
        }
    }
}
