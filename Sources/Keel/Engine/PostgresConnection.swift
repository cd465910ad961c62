/// How Keel reaches a PostgreSQL server on the host: `psql` as the OS user `postgres` over the local socket.
public struct PostgresConnection: Sendable, Hashable {
    public var port: Int
    public var database: String

    public init(port: Int = 5432, database: String = "postgres") {
        self.port = port
        self.database = database
    }

    /// A command running `psql` with the SQL on standard input (so values never appear in argv). The database
    /// goes as a quoted `dbname=` (psql reads a bare `-d` value holding `=` as a whole connection string).
    public func psql(database: String? = nil) -> ShellCommand {
        "runuser -u postgres -- psql -XAtq -v ON_ERROR_STOP=1 -p \(port) -d \("dbname=" + conninfoQuote(database ?? self.database)) -f -"
    }

    /// A command running `sql` through ``psql(database:)``, the SQL one shell-quoted word for the `printf` builtin.
    public func run(_ sql: String, database: String? = nil) -> ShellCommand {
        "printf '%s\\n' \(sql) | \(psql(database: database))"
    }

    /// A probe snippet: `sql` through psql, with a marker line when the server does not answer and another
    /// when it is a standby. The SQL is one shell-quoted word for the `printf` builtin, whatever names it holds.
    func probe(_ sql: String, database: String? = nil) -> String {
        """
        recovery=$(echo 'SELECT pg_is_in_recovery();' | \(psql(database: "postgres"))) || { echo '@@unreachable'; exit 0; }
        if [ "$recovery" = t ]; then echo '@@standby'; exit 0; fi
        \(run(sql, database: database)) || echo '@@unreachable'
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
