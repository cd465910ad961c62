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
        /// The system identifier of the database it holds (pgBackRest's `db-system-id`).
        public var systemID: String?
    }

    /// A backup timer's last firing on one host, and how the run it started ended.
    public struct ScheduledRun: Codable, Sendable {
        public var host: String
        /// `full` or `diff`.
        public var type: String
        /// When the timer last fired, in seconds since 1970; nil when it has not fired yet.
        public var fired: Int?
        /// systemd's result of the backup service's last run: `success`, `exit-code`, `timeout`, …
        public var result: String
        /// The backup the timer started still runs.
        public var running: Bool
    }

    /// The repository host, or the shared repository's path.
    public var repository: String
    public var stanza: String
    /// pgBackRest's status message: `ok`, or what is wrong (`missing stanza path`, `no valid backups`, …).
    public var status: String
    public var backups: [Backup]
    /// The backup timers' last runs, on the repository host or (shared repository) on every member read.
    public var runs: [ScheduledRun] = []

    /// Reads `pgbackrest info` through `transport`, a connection to `host`: the repository host, or a member when
    /// the repository is shared.
    static func read(_ backups: ClusterModel.Backups, host: String, transport: any Transport) async throws
        -> BackupStatus
    {
        async let timers = transport.run(runsCommand(backups), timeout: .seconds(10))
        let result = try await transport.run(
            PgBackRest(backups).fromAnyAccount("info --output=json"), timeout: .seconds(30))
        guard result.succeeded else { throw ResourceError("pgbackrest info failed on \(host): \(result.stderrText)") }
        var status = try parse(Data(result.stdout), repository: backups.repositoryHost ?? backups.path)
        status.runs = parseRuns((try await timers).stdoutText, host: host)
        return status
    }

    /// Prints, for each backup timer, a line `TYPE @FIRED RESULT ACTIVESTATE` (`-` when it has not fired).
    static func runsCommand(_ backups: ClusterModel.Backups) -> String {
        ["full", "diff"].map { type in
            let unit = "pgbackrest-\(backups.stanza)-\(type)"
            return
                "echo \(type) \"$(systemctl show -P LastTriggerUSec --timestamp=unix \(unit).timer)\" "
                + "\"$(systemctl show -P Result \(unit).service)\" \"$(systemctl show -P ActiveState \(unit).service)\""
        }.joined(separator: "; ")
    }

    /// Reads the lines of ``runsCommand(_:)``.
    static func parseRuns(_ text: String, host: String) -> [ScheduledRun] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { return nil }
            return ScheduledRun(
                host: host, type: fields[0], fired: Int(fields[1].drop { $0 == "@" }), result: fields[2],
                running: ["active", "activating"].contains(fields[3]))
        }
    }

    /// What is wrong with the backups: pgBackRest's own status, a scheduled run that failed, or a timer that fired
    /// and finished without leaving a backup of its kind (a differential one may be taken as a full).
    var problems: [String] {
        var problems = status == "ok" ? [] : ["backups: \(status)"]
        for run in runs where !run.running {
            let unit = "pgbackrest-\(stanza)-\(run.type).service"
            if run.result != "success" {
                problems.append(
                    "the last scheduled \(run.type) backup failed on \(run.host) (\(run.result); see journalctl -u \(unit))"
                )
            } else if let fired = run.fired,
                !backups.contains(where: { $0.finished >= fired && (run.type == "diff" || $0.type == "full") })
            {
                let when = Date(timeIntervalSince1970: TimeInterval(fired)).formatted(.iso8601)
                problems.append("no \(run.type) backup since its timer fired on \(run.host) at \(when)")
            }
        }
        return problems
    }

    /// Reads the JSON of `pgbackrest info --output=json` for one stanza.
    public static func parse(_ json: Data, repository: String) throws -> BackupStatus {
        struct Stanza: Decodable {
            struct Status: Decodable { var message: String }
            struct Entry: Decodable {
                struct Timestamp: Decodable { var stop: Int }
                struct Info: Decodable { var size: Int }
                struct Database: Decodable { var id: Int }
                var label: String, type: String, timestamp: Timestamp, info: Info, database: Database?
            }
            /// A database the stanza has held (one more after each major upgrade).
            struct Held: Decodable {
                var id: Int
                var systemID: UInt64
                enum CodingKeys: String, CodingKey {
                    case id
                    case systemID = "system-id"
                }
            }
            var name: String, status: Status, backup: [Entry], db: [Held]?
        }
        guard let stanza = try JSONDecoder().decode([Stanza].self, from: json).first else {
            throw ResourceError("pgbackrest info for \(repository) lists no stanza")
        }
        return BackupStatus(
            repository: repository, stanza: stanza.name, status: stanza.status.message,
            backups: stanza.backup.map { entry in
                Backup(
                    label: entry.label, type: entry.type, finished: entry.timestamp.stop, size: entry.info.size,
                    systemID: stanza.db?.first { $0.id == entry.database?.id }.map { String($0.systemID) })
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
