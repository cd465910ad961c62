import Foundation

/// The reference's (postgresql_cluster's, now autobase's) published inventory and variables files of every
/// release, which tests read as its users have them: `Tests/Fixtures/reference/RELEASE/`, written from the
/// reference's tags by `scripts/reference-fixtures`.
public enum ReferenceFiles {
    /// The folder holding each release's files.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/reference")

    /// Every release, oldest first: each tag (1.0.0 … 2.6.0), then the default branch's head by its month
    /// (2026-03), whose layout is the newest.
    public static let allReleases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted { version($0).lexicographicallyPrecedes(version($1)) }
    }()

    /// The releases that keep their variables in `vars/{main,system,Debian}.yml` (up to 2.2.0); the later ones keep
    /// them in each role's defaults (`roles/ROLE.yml`).
    public static let releases = allReleases.filter {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("\($0)/vars/main.yml").path)
    }

    /// A release's name as numbers to sort by: 1.10.0 after 1.9.0, a month (2026-03) after every tag.
    private static func version(_ release: String) -> [Int] {
        release.split(whereSeparator: { $0 == "." || $0 == "-" }).map { Int($0) ?? 0 }
    }

    /// The release's variables files (paths under `RELEASE/`), in the order the reference reads them.
    public static func variableFiles(_ release: String) throws -> [String] {
        guard !releases.contains(release) else {
            return ["main", "system", "Debian"].map { "vars/\($0).yml" }.filter {
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(release)/\($0)").path)
            }
        }
        return try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("\(release)/roles").path
        ).filter { $0.hasSuffix(".yml") }.sorted().map { "roles/\($0)" }
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
