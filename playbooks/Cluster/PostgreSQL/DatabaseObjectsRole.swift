import Keel

/// The inventory's roles, databases and extensions, made on whichever member is the primary (a standby reports
/// them converged: they reach it through replication).
struct DatabaseObjectsRole: Role {
    let model: ClusterModel

    var steps: [Step] {
        let connection = model.postgres
        for user in model.users {
            PostgresRole(user.name, password: user.password, attributes: user.attributes, connection: connection)
        }
        for database in model.databases {
            PostgresDatabase(database.name, owner: database.owner, connection: connection)
        }
        for extensionEntry in model.extensions {
            PostgresExtension(extensionEntry.name, database: extensionEntry.database, connection: connection)
        }
    }
}
