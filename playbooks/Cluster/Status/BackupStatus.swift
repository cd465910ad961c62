import Foundation
import Keel

/// The pgBackRest repository as it is now: the stanza's status and its backups, read on the repository host (or
/// on a member, for a shared repository).
public struct BackupStatus: Codable, Sendable {
    public struct Backup: Codable, Sendable {
        public var label: String
        /// `full`, `diff` or `incr`.
        public var type: String
        /// When the backup finished, in seconds since 1970.
        public var finished: Int
        /// The database size the backup holds, in bytes.
        public var size: Int
    }

    /// The repository host, or the shared repository's path.
    public var repository: String
    public var stanza: String
    /// pgBackRest's status message: `ok`, or what is wrong (`missing stanza path`, `no valid backups`, …).
    public var status: String
    public var backups: [Backup]

    /// Reads `pgbackrest info` through `transport`, a connection to `host`: the repository host, or a member when
    /// the repository is shared.
    static func read(_ backups: ClusterModel.Backups, host: String, transport: any Transport) async throws
        -> BackupStatus
    {
        let command = "pgbackrest --stanza=\(shellQuote(backups.stanza)) info --output=json"
        let user = backups.backupUser
        let result = try await transport.run(
            "if [ \"$(id -u)\" = 0 ]; then runuser -u \(user) -- \(command); else sudo -n -u \(user) \(command); fi",
            timeout: .seconds(30))
        guard result.succeeded else { throw ResourceError("pgbackrest info failed on \(host): \(result.stderrText)") }
        return try parse(Data(result.stdout), repository: backups.repositoryHost ?? backups.path)
    }

    /// Reads the JSON of `pgbackrest info --output=json` for one stanza.
    public static func parse(_ json: Data, repository: String) throws -> BackupStatus {
        struct Stanza: Decodable {
            struct Status: Decodable { var message: String }
            struct Entry: Decodable {
                struct Timestamp: Decodable { var stop: Int }
                struct Info: Decodable { var size: Int }
                var label: String, type: String, timestamp: Timestamp, info: Info
            }
            var name: String, status: Status, backup: [Entry]
        }
        guard let stanza = try JSONDecoder().decode([Stanza].self, from: json).first else {
            throw ResourceError("pgbackrest info for \(repository) lists no stanza")
        }
        return BackupStatus(
            repository: repository, stanza: stanza.name, status: stanza.status.message,
            backups: stanza.backup.map {
                Backup(label: $0.label, type: $0.type, finished: $0.timestamp.stop, size: $0.info.size)
            })
    }

    /// One line for the status table: the stanza's state and its newest backup of each type.
    public var summary: String {
        let newest = ["full", "diff", "incr"].compactMap { type in
            backups.last { $0.type == type }.map { backup in
                let finished = Date(timeIntervalSince1970: TimeInterval(backup.finished)).formatted(.iso8601)
                return "last \(type) \(backup.label) finished \(finished)"
            }
        }
        return "backups on \(repository) (stanza \(stanza)): \(status), \(backups.count) backup(s)"
            + (newest.isEmpty ? "" : "; " + newest.joined(separator: "; "))
    }
}
