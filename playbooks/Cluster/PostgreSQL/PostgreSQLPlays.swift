import Keel

/// The plays of PostgreSQL itself (Patroni runs it).
enum PostgreSQLPlays {
    /// A PostgreSQL already running standalone on the `[master]` host becomes the leader with its data.
    static func standaloneTakeover(_ model: ClusterModel) -> Play {
        Play("standalone postgresql", on: model.primaryHost ?? "master", tags: ["postgresql", "patroni"]) { _ in
            StandaloneTakeover(model: model)
        }
    }

    /// The inventory's roles, databases and extensions, on the primary.
    static func databaseObjects(_ model: ClusterModel) -> Play {
        Play("roles, databases, extensions", on: "postgres_cluster", tags: ["postgresql"]) { _ in
            DatabaseObjectsRole(model: model).steps
        }
    }

    /// The data directory deleted on `hosts` (remove-node --wipe-data).
    static func dataRemoved(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("data removed", on: model.pattern(hosts), tags: ["postgresql"]) { _ in
            Command(
                "rm -rf \(model.dataDirectory)", what: "data directory deleted",
                unless: "[ ! -e \(model.dataDirectory) ]")
        }
    }
}
