import Keel

/// The stanza's backups and WAL archive deleted from the repository, by pgBackRest itself: `stop` (no backup or
/// archive-push starts meanwhile), `stanza-delete --force` (the cluster is already stopped), then `start` again.
struct StanzaDeleted: Resource {
    let backups: ClusterModel.Backups

    var description: String { "pgbackrest stanza \(backups.stanza) deleted" }

    private var directories: [String] { ["backup", "archive"].map { "\(backups.path)/\($0)/\(backups.stanza)" } }

    var probe: String {
        (directories.map { directory -> ShellCommand in "[ -e \(directory) ] && echo present; " }.joined(separator: "")
            + "true").text
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text.contains("present") else { return [] }
        let pgbackrest = PgBackRest(backups)
        let quiet = "--log-level-console=warn"
        return [
            Change(
                "stop, stanza-delete",
                .shell(
                    "cd / && \(pgbackrest("\(quiet) stop")) && \(pgbackrest("\(quiet) --force stanza-delete")) "
                        + "&& \(pgbackrest("\(quiet) start"))"))
        ]
    }
}
