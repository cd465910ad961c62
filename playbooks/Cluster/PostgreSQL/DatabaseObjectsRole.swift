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
        if let monitoring = model.monitoring {
            PostgresRole(monitoring.role, password: monitoring.rolePassword, connection: connection)
            let role = SQL.literal(monitoring.role)
            Command(
                connection.run("GRANT pg_monitor TO \(SQL.identifier(monitoring.role))"),
                what: "pg_monitor granted to \(monitoring.role)",
                unless: connection.run(
                    "SELECT pg_is_in_recovery() OR EXISTS (SELECT 1 FROM pg_auth_members m "
                        + "JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member "
                        + "WHERE r.rolname = 'pg_monitor' AND u.rolname = \(role))") + " | grep -qx t")
        }
    }
}
