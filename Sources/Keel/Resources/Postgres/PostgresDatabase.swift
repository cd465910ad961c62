/// A PostgreSQL database with its owner.
public struct PostgresDatabase: Resource {
    public var name: String
    public var owner: String
    public var connection: PostgresConnection

    public init(_ name: String, owner: String = "postgres", connection: PostgresConnection = PostgresConnection()) {
        self.name = name
        self.owner = owner
        self.connection = connection
    }

    public var description: String { "postgres database \(name)" }
    /// Extensions in the new database can be probed only once it exists.
    public var affectsOtherResources: Bool { true }

    public var probe: String {
        connection.probe(
            "SELECT 'found', pg_get_userbyid(datdba) FROM pg_database WHERE datname = \(SQL.literal(name));")
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let rows = try connection.rows(output, on: host) else { return [] }
        let fields = rows.first ?? []
        guard fields.first == "found" else {
            return [
                Change(
                    "create",
                    .sql(
                        ["CREATE DATABASE \(SQL.identifier(name)) OWNER \(SQL.identifier(owner))"],
                        connection: connection))
            ]
        }
        guard fields.count != 2 || fields[1] != owner else { return [] }
        return [
            Change(
                "owner → \(owner)",
                .sql(
                    ["ALTER DATABASE \(SQL.identifier(name)) OWNER TO \(SQL.identifier(owner))"], connection: connection
                ))
        ]
    }
}
