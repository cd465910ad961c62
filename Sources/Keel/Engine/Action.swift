/// One thing apply does on a host: a shell command (cut short with the run, or run to its end), a file upload, a new
/// directory or PostgreSQL statements. Each
/// renders the line the plan shows (`--check -v`) from the same values it executes with, and never shows a secret.
public struct Action: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case shell(String, input: Secret?, timeout: Duration)
        case detached(String, timeout: Duration)
        case upload(path: String, bytes: [UInt8], mode: UInt32, owner: String?, group: String?, account: String)
        case directory(path: String, mode: UInt32, owner: String?, group: String?)
        case sql([String], connection: PostgresConnection, database: String?, hiding: [Secret])
    }

    let kind: Kind

    /// `command` under `/bin/sh`; `input` goes to its standard input (secrets go there, never in the command).
    public static func shell(_ command: ShellCommand, input: Secret? = nil, timeout: Duration = .seconds(600))
        -> Action
    {
        Action(kind: .shell(command.text, input: input, timeout: timeout))
    }

    /// `command` under `/bin/sh` as root, run to its end whatever becomes of the run (``DetachedJob``): for a step
    /// whose interruption would leave the host needing repair by hand, dpkg's. It takes no standard input.
    public static func detached(_ command: ShellCommand, timeout: Duration = .seconds(1800)) -> Action {
        Action(kind: .detached(command.text, timeout: timeout))
    }

    /// `bytes` written to `path` atomically, with mode and owner set before the file appears; by `account` when
    /// another account than root controls the path (see ``PathController``).
    public static func upload(
        _ bytes: [UInt8], to path: String, mode: UInt32, owner: String?, group: String?, as account: String = "root"
    ) -> Action {
        Action(kind: .upload(path: path, bytes: bytes, mode: mode, owner: owner, group: group, account: account))
    }

    /// Directory `path` made by root with `mode`, `owner` and `group`; its missing parents too, with the umask's
    /// mode (``PathController/makeDirectory(_:mode:owner:group:)``).
    public static func directory(_ path: String, mode: UInt32, owner: String?, group: String?) -> Action {
        Action(kind: .directory(path: path, mode: mode, owner: owner, group: group))
    }

    /// `statements` in one psql session, each on its own; the text of `hiding` is shown as `***`.
    public static func sql(
        _ statements: [String], connection: PostgresConnection, database: String? = nil, hiding: [Secret] = []
    ) -> Action {
        Action(kind: .sql(statements, connection: connection, database: database, hiding: hiding))
    }

    /// The action as the plan shows it.
    public var description: String {
        switch kind {
        case .shell(let command, _, _), .detached(let command, _):
            return command
        case .upload(let path, let bytes, let mode, let owner, let group, let account):
            let ownership = owner.map { " owner \($0)" + (group.map { ":\($0)" } ?? "") } ?? ""
            let writer = account == "root" ? "" : ", written as \(account)"
            return "upload \(path) (\(bytes.count) bytes, mode \(octal(mode))\(ownership)\(writer))"
        case .directory(let path, let mode, let owner, let group):
            return PathController.makeDirectory(path, mode: mode, owner: owner, group: group).text
        case .sql(let statements, _, let database, let hiding):
            let shown = statements.map { statement in
                hiding.reduce(statement) { $0.replacingOccurrences(of: $1.reveal(), with: "***") }
            }
            return "psql\(database.map { " -d \($0)" } ?? ""): " + shown.joined(separator: "; ")
        }
    }

    /// Carries the action out; throws ``CommandFailure`` when it fails.
    func perform(on host: HostExecutor) async throws {
        switch kind {
        case .shell(let command, let input, let timeout):
            try await host.run(command, input: input.map { Array($0.reveal().utf8) } ?? [], timeout: timeout)
        case .detached(let command, let timeout):
            try await host.runDetached(command, timeout: timeout)
        case .upload(let path, let bytes, let mode, let owner, let group, let account):
            try await host.run(
                PathController.place(path, mode: mode, owner: owner, group: group, as: account).text, input: bytes)
        case .directory(let path, let mode, let owner, let group):
            try await host.run(PathController.makeDirectory(path, mode: mode, owner: owner, group: group).text)
        case .sql(let statements, let connection, let database, _):
            try await host.run(
                connection.psql(database: database).text,
                input: Array(statements.map { $0 + ";" }.joined(separator: "\n").utf8))
        }
    }
}
