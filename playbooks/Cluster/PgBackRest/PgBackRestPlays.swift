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

    /// pgbackrest.conf on `host` (a member or the repository host), as `model` names the data directory.
    static func configuration(_ model: ClusterModel, on host: HostContext) -> Template? {
        guard let backups = model.backups else { return nil }
        if case .host(host.name, let databaseKey, let repositoryKey) = backups.repository {
            return PgBackRestRepositoryRole(
                host: host, model: model, backups: backups, databaseKey: databaseKey, repositoryKey: repositoryKey
            ).configuration
        }
        return PgBackRestDatabaseRole(host: host, model: model, backups: backups).configuration
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
                    timeout: model.limits.dataCopyTimeout
                ).steps
            }
        ]
    }

    /// The backups when the cluster goes: their timers stopped, then the stanza deleted, or kept and marked as a
    /// removed cluster's (so that a new cluster of the same inventory does not archive into it).
    static func retired(_ model: ClusterModel, deletingBackups: Bool) -> [Play] {
        guard let backups = model.backups else { return [] }
        return [
            Play("backup timers stopped", on: backups.repositoryHost ?? model.pattern(model.databaseHosts)) { _ in
                for type in ["full", "diff"] {
                    Service("pgbackrest-\(backups.stanza)-\(type).timer", state: .stopped, enabled: false)
                }
            },
            Play(
                deletingBackups ? "backups deleted" : "backups kept",
                on: backups.repositoryHost ?? model.databaseHosts[0]
            ) {
                _ in
                if deletingBackups {
                    StanzaDeleted(backups: backups)
                    File.absent(backups.removedClusterMark)
                } else {
                    // Written as the repository's owner, who controls its directory.
                    File(
                        backups.removedClusterMark,
                        content:
                            "# Keel: cluster \(model.name) was removed; stanza \(backups.stanza) keeps its backups.\n",
                        owner: backups.backupUser, group: backups.backupUser)
                }
            },
        ]
    }
}
