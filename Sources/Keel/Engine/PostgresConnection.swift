/// How Keel reaches a PostgreSQL server on the host: `psql` as the OS user `postgres` over the local socket.
public struct PostgresConnection: Sendable, Hashable {
    public var port: Int
    public var database: String
    /// The server's `bin` directory, searched for `psql` first: Debian's `/usr/bin/psql` is a Perl wrapper that
    /// doubles what each call costs. Without it, or where it holds no psql, the `psql` on the PATH runs.
    public var binaries: String?

    public init(port: Int = 5432, database: String = "postgres", binaries: String? = nil) {
        self.port = port
        self.database = database
        self.binaries = binaries
    }

    /// A command running `psql` with the SQL on standard input (so values never appear in argv). The database
    /// goes as a quoted `dbname=` (psql reads a bare `-d` value holding `=` as a whole connection string).
    public func psql(database: String? = nil) -> ShellCommand {
        let path: ShellCommand = binaries.map { "PATH=\($0):$PATH " } ?? ""
        return
            "\(path)runuser -u postgres -- psql -XAtq -v ON_ERROR_STOP=1 -p \(port) -d \("dbname=" + conninfoQuote(database ?? self.database)) -f -"
    }

    /// A command running `sql` through ``psql(database:)``, the SQL one shell-quoted word for the `printf` builtin.
    public func run(_ sql: String, database: String? = nil) -> ShellCommand {
        "printf '%s\\n' \(sql) | \(psql(database: database))"
    }

    /// A probe snippet: `sql` through psql, after a line saying whether the server is a standby, in one session.
    /// When that fails (the server down, the database not made yet), a second psql to the `postgres` database tells
    /// a standby (always converged) from a server that does not answer; a standby that refuses connections until
    /// its replay reaches a consistent state (just after a rewind) is told by the `standby.signal` in the data
    /// directory its socket's lock file names. The SQL is one shell-quoted word for the `printf` builtin, whatever
    /// names it holds.
    func probe(_ sql: String, database: String? = nil) -> String {
        let standby = "SELECT CASE WHEN pg_is_in_recovery() THEN '@@standby' ELSE '@@primary' END;"
        return """
            rows=$(\(run(standby + "\n" + sql, database: database))) && { printf '%s\\n' "$rows"; exit 0; }
            recovery=$(echo 'SELECT pg_is_in_recovery();' | \(psql(database: "postgres"))) && [ "$recovery" = t ] \\
                && { echo '@@standby'; exit 0; }
            data=$(sed -n 2p \(Self.socketLock(port)) 2>/dev/null)
            [ -n "$data" ] && [ -e "$data/standby.signal" ] && echo '@@standby' || echo '@@unreachable'
            """
    }

    /// The lock file of the server's socket in Debian's socket directory: its second line is the data directory.
    static func socketLock(_ port: Int) -> String { "/var/run/postgresql/.s.PGSQL.\(port).lock" }

    /// The probe's rows split into fields, or nil on a standby: roles, databases and extensions are created on
    /// the primary and reach standbys through replication, so a standby is always converged.
    /// - Throws: when psql could not reach the server.
    func rows(_ output: ProbeOutput, on host: HostContext, database: String? = nil) throws -> [[String]]? {
        var text = Substring(output.text)
        if text.hasPrefix("@@primary") {
            text = text.dropFirst("@@primary\n".count)
        } else if text.contains("@@unreachable") {
            throw ResourceError(
                "PostgreSQL does not answer on port \(port) of \(host.name)\(database.map { ", or database \($0) is missing" } ?? "")"
            )
        } else if text.hasPrefix("@@standby") {
            return nil
        }
        return text.split(separator: "\n").map {
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
