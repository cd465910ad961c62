import Keel

/// Before the first change: a shared repository (no repository host) is mounted on every database host, and the
/// stanza does not hold a removed cluster's backups, which a new cluster cannot archive into.
struct PgBackRestPreflight: PreflightCheck {
    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        guard let backups = model.backups else { return "" }
        var script: [ShellCommand] = []
        if backups.repositoryHost == nil, model.databaseHosts.contains(host) {
            script.append("[ -d \(backups.path) ] || echo shared_repository=missing")
        }
        if host == backups.repositoryHost || (backups.repositoryHost == nil && model.databaseHosts.contains(host)) {
            script.append("[ -e \(backups.removedClusterMark) ] && echo stanza_retired=1")
        }
        return script.joined(separator: "\n")
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        guard let backups = model.backups else { return [] }
        var problems: [String] = []
        if found.contains("shared_repository=missing") {
            problems.append(
                "the pgBackRest repository \(backups.path) does not exist here; mount the filesystem every database "
                    + "host shares (NFS) at \(backups.path) first, or list a repository host under [pgbackrest]")
        }
        if found.contains("stanza_retired=1") {
            problems.append(
                "pgBackRest stanza \(backups.stanza) holds the backups of a removed cluster (\(backups.removedClusterMark)); "
                    + "a new cluster cannot archive into it: set pgbackrest_stanza to a new name (the old backups stay "
                    + "readable with pgbackrest --stanza=\(backups.stanza) info), or delete them with "
                    + "keel remove-cluster --delete-backups")
        }
        return problems
    }
}
