import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// The generated half of the reference catalogue, `ReferenceVariable+Published*.swift`: every variable of the
/// reference's files of every release, the file it comes from (the newest release's) and the fingerprints of its
/// published values, in files of ``perFile`` variables each and one that merges them. `scripts/reference-catalogue` writes it again from the files (`KEEL_WRITE_REFERENCE_CATALOGUE`);
/// otherwise this test fails when the checked-in file is not what the files give, so the two cannot drift.
@Suite("the reference catalogue is generated from the reference's files of every release")
struct ReferenceCatalogueTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("playbooks/Cluster/Model/Reference")

    /// How many lines of entries one generated file holds: with its header, each stays under the 250 lines the
    /// structure lint allows a `Model/` file.
    static let linesPerFile = 230

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
        let read = try files()
        // Each release's own variables, which its Jinja refers to.
        var releaseVariables: [String: [String: Variable]] = [:]
        for (release, file, variables) in read where file != "inventory" {
            releaseVariables[release, default: [:]].merge(variables) { $1 }
        }
        let readers = releaseVariables.mapValues { VariableReader(host: "h1", variables: $0) }
        for (release, file, variables) in read {
            let origin = (file as NSString).lastPathComponent.replacingOccurrences(of: ".yml", with: "")
            for (name, variable) in variables {
                // The releases come oldest first: a name's origin is its newest file.
                origins[name] = origin
                fingerprints[name, default: []].insert(ReferenceVariable.fingerprint(variable.value))
                // And what it comes to in its release, where that needs no fact of a host: the same meaning written
                // without Jinja is the reference's value too.
                if file != "inventory", let meaning = try? readers[release]?.lookup([name])?.variable.value {
                    fingerprints[name, default: []].insert(ReferenceVariable.fingerprint(meaning))
                }
            }
        }
        let header = """
            // Generated by scripts/reference-catalogue from postgresql_cluster's files of \
            \(ReferenceFiles.allReleases.joined(separator: ", ")): do not edit.

            """
        let names = origins.keys.sorted()
        let entries = names.map { name in
            let values = fingerprints[name, default: []].sorted().map { "0x" + String($0, radix: 16) }
            let arguments = "\"\(origins[name] ?? "")\", [\(values.joined(separator: ", "))]"
            let line = "        \"\(name)\": Published(\(arguments)),"
            // As swift-format wraps a line over 120 characters: the arguments on a line of their own, or else
            // the fingerprints packed on lines of their own.
            if line.count <= 120 { return line }
            let wrapped = "            \(arguments)),"
            if wrapped.count <= 120 { return "        \"\(name)\": Published(\n\(wrapped)" }
            var lines: [String] = []
            for value in values {
                if let last = lines.last, last.count + value.count + 2 <= 120 {
                    lines[lines.count - 1] = last + " " + value + ","
                } else {
                    lines.append(String(repeating: " ", count: 16) + value + ",")
                }
            }
            return "        \"\(name)\": Published(\n            \"\(origins[name] ?? "")\",\n            [\n"
                + lines.joined(separator: "\n") + "\n            ]),"
        }
        // The entries in order, a file filled up to linesPerFile before the next begins.
        var chunks: [[(name: String, text: String)]] = [[]]
        var filled = 0
        for (name, text) in zip(names, entries) {
            let lines = text.split(separator: "\n").count
            if filled + lines > Self.linesPerFile, !chunks[chunks.count - 1].isEmpty {
                chunks.append([])
                filled = 0
            }
            chunks[chunks.count - 1].append((name, text))
            filled += lines
        }
        var files = chunks.enumerated().map { index, chunk in
            let text =
                header + """

                    extension ReferenceVariable {
                        /// Variables \(chunk.first?.name ?? "") to \(chunk.last?.name ?? ""), with the fingerprints of their published values.
                        static let published\(index + 1): [String: Published] = [
                    \(chunk.map(\.text).joined(separator: "\n"))
                        ]
                    }

                    """
            return (folder.appendingPathComponent("ReferenceVariable+Published\(index + 1).swift").path, text)
        }
        let tables = (1...chunks.count).map { "published\($0)" }.joined(separator: ", ")
        files.append(
            (
                folder.appendingPathComponent("ReferenceVariable+Published.swift").path,
                header + """

                    extension ReferenceVariable {
                        /// Every variable of the reference's files, with the file it comes from (the newest release's: a
                        /// role's defaults, `main`, `system`, `Debian` or `inventory`).
                        static let published = [
                            \(tables),
                        ].reduce(into: [String: Published]()) { all, part in all.merge(part) { $1 } }
                    }

                    """
            ))
        return files
    }

    @Test("every release's files are there, oldest first: 1.0.0 … 2.2.0 in vars/, 2.3.0 … 2.6.0 and 2026-03 in roles/")
    func everyRelease() {
        let all = ReferenceFiles.allReleases
        #expect(all.count == 27 && all.first == "1.0.0" && all.last == "2026-03", "\(all)")
        #expect(all.firstIndex(of: "1.9.0")! < all.firstIndex(of: "1.10.0")!, "\(all)")
        #expect(ReferenceFiles.releases == Array(all.prefix(17)) && ReferenceFiles.releases.last == "2.2.0")
    }

    @Test("the checked-in catalogue is what the reference's files give (scripts/reference-catalogue writes it)")
    func reproduced() throws {
        let generated = try Self.generated()
        let present = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasPrefix("ReferenceVariable+Published") }
            .map { Self.folder.appendingPathComponent($0).path }
        if ProcessInfo.processInfo.environment["KEEL_WRITE_REFERENCE_CATALOGUE"] != nil {
            for stale in Set(present).subtracting(generated.map(\.path)) {
                try FileManager.default.removeItem(atPath: stale)
            }
        } else {
            #expect(
                Set(present) == Set(generated.map(\.path)), "run scripts/reference-catalogue: other files are generated"
            )
        }
        for (path, text) in generated {
            if ProcessInfo.processInfo.environment["KEEL_WRITE_REFERENCE_CATALOGUE"] != nil {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            let checkedIn = try String(contentsOfFile: path, encoding: .utf8)
            #expect(checkedIn == text, "\(path): run scripts/reference-catalogue, then review its diff")
        }
    }
}
