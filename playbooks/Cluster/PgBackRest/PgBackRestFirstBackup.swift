import Keel

/// The stanza and its first full backup, made once the cluster serves: on the repository host, or on the member
/// that is the primary (`onlyIf`) when the repository is shared.
struct PgBackRestFirstBackup: Role {
    let backups: ClusterModel.Backups
    let condition: String?

    init(_ backups: ClusterModel.Backups, onlyIf condition: String?) {
        self.backups = backups
        self.condition = condition
    }

    var steps: [Step] {
        let pgbackrest = "runuser -u \(backups.backupUser) -- pgbackrest --stanza=\(shellQuote(backups.stanza))"
        let elsewhere = condition.map { "! \($0) || " } ?? ""
        Command(
            "\(pgbackrest) stanza-create",
            unless: "\(elsewhere)[ -e \(backups.path)/backup/\(backups.stanza)/backup.info ]")
        Command(
            "\(pgbackrest) check && \(pgbackrest) --type=full backup",
            unless: "\(elsewhere)\(pgbackrest) info | grep -q 'full backup:'")
    }
}
