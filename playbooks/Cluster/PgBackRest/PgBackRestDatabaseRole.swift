import Keel

/// pgBackRest on a database host. With a repository host: WAL archived to it over SSH as `pgbackrest` with this
/// host's `postgres` key, the repository's host keys pinned. With a shared repository: WAL archived into the shared
/// directory, this member's mark left in it (see ``SharedRepositoryCheck``), and timers that back up from the
/// primary.
struct PgBackRestDatabaseRole: Role {
    let host: HostContext
    let model: ClusterModel
    let backups: ClusterModel.Backups

    /// pgBackRest, here and on the repository host.
    static let packages = ["pgbackrest"]

    var steps: [Step] {
        get throws {
            Package(Self.packages)
            switch backups.repository {
            case .host(let repositoryHost, let databaseKey, let repositoryKey):
                try SSHTrust(
                    user: "postgres", home: ClusterModel.postgresHome, key: databaseKey, accepting: repositoryKey,
                    from: [repositoryHost], host: host, model: model
                ).steps
            case .shared:
                Directory(backups.path, mode: 0o750, owner: "postgres", group: "postgres")
                SharedRepositoryMark(path: backups.path, host: host.name)
            }
            Directory("/var/log/pgbackrest", mode: 0o750, owner: "postgres", group: "postgres")
            Directory("/etc/pgbackrest")
            configuration
            if backups.repositoryHost == nil {
                // Every member has the timers; only the one that is the primary when they fire backs up.
                PgBackRestTimers(backups: backups, onlyIf: PatroniAPI(model, member: host.name).isPrimaryCondition)
                    .steps
            }
        }
    }

    /// pgbackrest.conf, which names the data directory (a major upgrade renders it anew).
    var configuration: Template {
        Template(
            "cluster/pgbackrest/database.conf", to: PgBackRestPlays.configuration, mode: 0o640,
            group: "postgres",
            values: [
                "cluster": .string(model.name), "member": .string(host.name), "stanza": .string(backups.stanza),
                "repository_host": .string(backups.repositoryHost ?? ""),
                "repository_address": .string(backups.repositoryHost.map(model.address(of:)) ?? ""),
                "path": .string(backups.path), "retention_full": .int(backups.retentionFull),
                "data_dir": .string(model.dataDirectory), "port": .int(model.postgresPort),
            ])
    }
}
