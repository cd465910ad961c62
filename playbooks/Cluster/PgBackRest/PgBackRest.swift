import Keel

/// `pgbackrest` command lines for the cluster's stanza, run by root as the account that owns the repository (its
/// own user on a repository host) or the data (postgres, for a restore).
struct PgBackRest {
    let stanza: String
    /// Who runs it.
    let user: String

    /// As the repository's owner.
    init(_ backups: ClusterModel.Backups) { self.init(backups, as: backups.backupUser) }

    init(_ backups: ClusterModel.Backups, as user: String) {
        stanza = backups.stanza
        self.user = user
    }

    /// `pgbackrest` with `arguments`, as ``user``.
    func callAsFunction(_ arguments: ShellCommand) -> ShellCommand { "runuser -u \(user) -- \(command(arguments))" }

    /// The same from root (through `runuser`) or from an account that may `sudo` (`keel status` run as itself).
    func fromAnyAccount(_ arguments: ShellCommand) -> ShellCommand {
        "if [ \"$(id -u)\" = 0 ]; then runuser -u \(user) -- \(command(arguments)); "
            + "else sudo -n -u \(user) \(command(arguments)); fi"
    }

    private func command(_ arguments: ShellCommand) -> ShellCommand { "pgbackrest --stanza=\(stanza) \(arguments)" }
}
