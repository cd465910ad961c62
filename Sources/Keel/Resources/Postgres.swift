/// How Keel reaches a PostgreSQL server on the host: `psql` as the OS user `postgres` over the local socket.
public struct PostgresConnection: Sendable, Hashable {
    public var port: Int
    public var database: String

    public init(port: Int = 5432, database: String = "postgres") {
        self.port = port
        self.database = database
    }

    /// A command running `psql` with the SQL on standard input (so values never appear in argv).
    public func psql(database: String? = nil) -> String {
        "runuser -u postgres -- psql -XAtq -v ON_ERROR_STOP=1 -p \(port) -d \(shellQuote(database ?? self.database)) -f -"
    }

    /// A probe snippet: `sql` through psql, with a marker line when the server does not answer and another
    /// when it is a standby. The SQL is one shell-quoted word for the `printf` builtin, whatever names it holds.
    func probe(_ sql: String, database: String? = nil) -> String {
        """
        recovery=$(echo 'SELECT pg_is_in_recovery();' | \(psql(database: "postgres"))) || { echo '@@unreachable'; exit 0; }
        if [ "$recovery" = t ]; then echo '@@standby'; exit 0; fi
        printf '%s\\n' \(shellQuote(sql)) | \(psql(database: database)) || echo '@@unreachable'
        """
    }

    /// The probe's rows split into fields, or nil on a standby: roles, databases and extensions are created on
    /// the primary and reach standbys through replication, so a standby is always converged.
    /// - Throws: when psql could not reach the server.
    func rows(_ output: ProbeOutput, on host: HostContext, database: String? = nil) throws -> [[String]]? {
        if output.text.contains("@@unreachable") {
            throw ResourceError(
                "PostgreSQL does not answer on port \(port) of \(host.name)\(database.map { ", or database \($0) is missing" } ?? "")"
            )
        }
        if output.text.hasPrefix("@@standby") { return nil }
        return output.text.split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

/// SQL quoting: identifiers in double quotes, literals in single quotes, each with its quote doubled.
public enum SQL {
    public static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    public static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

/// A PostgreSQL role with its login, superuser and replication attributes and, optionally, a password.
///
/// The password is compared with the stored SCRAM verifier, and set as a verifier computed by Keel: the plain
/// text reaches neither the server nor any command line, and the plan shows the verifier as `***`.
public struct PostgresRole: Resource {
    public var name: String
    public var password: Secret?
    public var login: Bool
    public var superuser: Bool
    public var replication: Bool
    public var connection: PostgresConnection

    public init(
        _ name: String, password: Secret? = nil, login: Bool = true, superuser: Bool = false, replication: Bool = false,
        connection: PostgresConnection = PostgresConnection()
    ) {
        self.name = name
        self.password = password
        self.login = login
        self.superuser = superuser
        self.replication = replication
        self.connection = connection
    }

    public var description: String { "postgres role \(name)" }
    /// Databases owned by the role can be probed for their owner only once it exists.
    public var affectsOtherResources: Bool { true }

    public var probe: String {
        connection.probe(
            "SELECT 'found', rolcanlogin, rolsuper, rolreplication, coalesce(rolpassword, '') FROM pg_authid WHERE rolname = \(SQL.literal(name));"
        )
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let rows = try connection.rows(output, on: host) else { return [] }
        let fields = rows.first ?? []
        let attributes =
            "\(login ? "LOGIN" : "NOLOGIN") \(superuser ? "SUPERUSER" : "NOSUPERUSER") \(replication ? "REPLICATION" : "NOREPLICATION")"
        guard fields.first == "found", fields.count == 5 else {
            return [
                Change(
                    "create",
                    statement("CREATE ROLE \(SQL.identifier(name)) \(attributes)", withPassword: password != nil))
            ]
        }
        var changes: [Change] = []
        if fields[1] != (login ? "t" : "f") || fields[2] != (superuser ? "t" : "f")
            || fields[3] != (replication ? "t" : "f")
        {
            changes.append(
                Change("attributes → \(attributes)", statement("ALTER ROLE \(SQL.identifier(name)) \(attributes)")))
        }
        if let password, !SCRAM.matches(fields[4], password: password.reveal()) {
            changes.append(Change("password", statement("ALTER ROLE \(SQL.identifier(name))", withPassword: true)))
        }
        return changes
    }

    /// `sql`, with ` PASSWORD 'verifier'` appended when asked: a new SCRAM verifier, shown as `***`.
    private func statement(_ sql: String, withPassword: Bool = false) -> Action {
        guard withPassword, let password else { return .sql([sql], connection: connection) }
        let verifier = Secret(SCRAM.verifier(for: password.reveal()))
        return .sql([sql + " PASSWORD " + SQL.literal(verifier.reveal())], connection: connection, hiding: [verifier])
    }
}

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
