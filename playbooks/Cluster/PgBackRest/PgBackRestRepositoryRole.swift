import Keel

/// The pgBackRest repository host: the repository, the `pgbackrest` user that reaches every database host as
/// `postgres`, and timers for the full and differential backups.
struct PgBackRestRepositoryRole: Role {
    let host: HostContext
    let model: ClusterModel
    let backups: ClusterModel.Backups
    let databaseKey: SSHKeyPair
    let repositoryKey: SSHKeyPair

    var steps: [Step] {
        get throws {
            Package(PgBackRestDatabaseRole.packages)
            Group("pgbackrest")
            User("pgbackrest", group: "pgbackrest", home: "/home/pgbackrest")
            try SSHTrust(
                user: "pgbackrest", home: SSHTrust.repositoryHome, key: repositoryKey, accepting: databaseKey,
                from: model.databaseHosts, host: host, model: model
            ).steps
            Directory(backups.path, mode: 0o750, owner: "pgbackrest", group: "pgbackrest")
            Directory("/var/log/pgbackrest", mode: 0o750, owner: "pgbackrest", group: "pgbackrest")
            Directory("/etc/pgbackrest")
            configuration
            PgBackRestTimers(backups: backups, onlyIf: nil).steps
        }
    }

    /// pgbackrest.conf, which names the members' data directory (a major upgrade renders it anew).
    var configuration: Template {
        Template(
            "cluster/pgbackrest/repository.conf", to: PgBackRestPlays.configuration, mode: 0o640,
            group: "pgbackrest",
            values: [
                "cluster": .string(model.name), "stanza": .string(backups.stanza),
                "retention_full": .int(backups.retentionFull),
                "path": .string(backups.path), "data_dir": .string(model.dataDirectory),
                "port": .int(model.postgresPort),
                "members": .list(model.databaseHosts.map { .map(["address": .string(model.address(of: $0))]) }),
            ])
    }
}
