/// A PostgreSQL extension created in a database.
public struct PostgresExtension: Resource {
    public var name: String
    public var database: String
    public var connection: PostgresConnection

    public init(_ name: String, database: String, connection: PostgresConnection = PostgresConnection()) {
        self.name = name
        self.database = database
        self.connection = connection
    }

    public var description: String { "postgres extension \(name) in \(database)" }

    public var probe: String {
        connection.probe("SELECT 'found' FROM pg_extension WHERE extname = \(SQL.literal(name));", database: database)
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let rows = try connection.rows(output, on: host, database: database) else { return [] }
        guard rows.first != ["found"] else { return [] }
        return [
            Change(
                "create",
                .sql(
                    ["CREATE EXTENSION IF NOT EXISTS \(SQL.identifier(name))"], connection: connection,
                    database: database))
        ]
    }
}
