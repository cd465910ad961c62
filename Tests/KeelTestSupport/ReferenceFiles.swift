import Foundation

/// The reference's (postgresql_cluster's) published inventory and vars files, which tests read as its users have
/// them: `shared/fixtures/reference/RELEASE/` beside the repository (or beside a folder holding it), or where
/// `KEEL_REFERENCE_FIXTURES` points.
public enum ReferenceFiles {
    /// The releases with `vars/{main,system,Debian}.yml`.
    public static let releases = ["1.9.0", "2.1.0"]
    /// Every release, the newest (each role's defaults as `roles/ROLE.yml`) last.
    public static let allReleases = releases + ["2026-03"]

    /// The release's variables files (paths under `RELEASE/`), in the order the reference reads them.
    public static func variableFiles(_ release: String) throws -> [String] {
        guard !releases.contains(release) else { return ["vars/main.yml", "vars/system.yml", "vars/Debian.yml"] }
        return try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("\(release)/roles").path
        ).filter { $0.hasSuffix(".yml") }.sorted().map { "roles/\($0)" }
    }

    /// The folder holding `RELEASE/inventory` and `RELEASE/vars/*.yml`.
    public static var directory: URL {
        get throws {
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let ancestors = sequence(first: repository.deletingLastPathComponent()) { folder in
                folder.path == "/" ? nil : folder.deletingLastPathComponent()
            }
            let candidates =
                [ProcessInfo.processInfo.environment["KEEL_REFERENCE_FIXTURES"].map { URL(fileURLWithPath: $0) }]
                .compactMap { $0 } + ancestors.map { $0.appendingPathComponent("shared/fixtures/reference") }
            guard
                let found = candidates.first(where: {
                    FileManager.default.fileExists(atPath: $0.appendingPathComponent("2.1.0/inventory").path)
                })
            else {
                throw CocoaError(
                    .fileNoSuchFile,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "the reference's files are not in \(candidates.map(\.path).joined(separator: " or "))"
                    ])
            }
            return found
        }
    }

    /// The text of `RELEASE/PATH`.
    public static func text(_ release: String, _ path: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("\(release)/\(path)"), encoding: .utf8)
    }

    /// The release's inventory with its example hosts uncommented (`#10.128.64.140 …` becomes a host line), as a
    /// user fills it in.
    public static func inventoryWithHosts(_ release: String) throws -> String {
        try text(release, "inventory").split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#10.") ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
    }
}
