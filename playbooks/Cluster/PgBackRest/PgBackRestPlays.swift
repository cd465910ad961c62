import Keel

/// The plays of the backups: pgBackRest on the members and the repository, and the first backup.
enum PgBackRestPlays {
    /// pgBackRest's configuration, on the members and the repository host alike.
    static let configuration = "/etc/pgbackrest/pgbackrest.conf"

    /// pgBackRest on the database hosts and the repository host; a shared repository is proven shared before
    /// Patroni starts.
    static func setup(_ model: ClusterModel) -> [Play] {
        guard let backups = model.backups else { return [] }
        let hosts = model.databaseHosts + [backups.repositoryHost].compactMap { $0 }
        var plays = [
            Play("pgbackrest", on: model.pattern(hosts), tags: ["pgbackrest"]) { host in
                if case .host(host.name, let databaseKey, let repositoryKey) = backups.repository {
                    try PgBackRestRepositoryRole(
                        host: host, model: model, backups: backups, databaseKey: databaseKey,
                        repositoryKey: repositoryKey
                    ).steps
                } else {
                    try PgBackRestDatabaseRole(host: host, model: model, backups: backups).steps
                }
            }
        ]
        if backups.repositoryHost == nil {
            plays.append(
                Play(
                    "pgbackrest shared repository", on: model.pattern(model.databaseHosts), anyErrorsFatal: true,
                    tags: ["pgbackrest"]
                ) { host in
                    SharedRepositoryCheck(path: backups.path, host: host.name, members: model.databaseHosts)
                })
        }
        return plays
    }

    /// The stanza and the first full backup, once the cluster serves.
    static func firstBackup(_ model: ClusterModel) -> [Play] {
        guard let backups = model.backups else { return [] }
        return [
            Play(
                "pgbackrest stanza and first backup", on: backups.repositoryHost ?? model.pattern(model.databaseHosts),
                tags: ["pgbackrest"]
            ) { host in
                PgBackRestFirstBackup(
                    backups,
                    onlyIf: backups.repositoryHost == nil ? PatroniAPI(model, member: host.name).isPrimary : nil,
                    timeout: model.dataCopyTimeout
                ).steps
            }
        ]
    }
}
