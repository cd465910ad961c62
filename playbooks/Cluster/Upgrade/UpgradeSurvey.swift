import Foundation
import Keel

/// What `keel upgrade` reads before it plans, without changing anything: each member's running major release
/// (its Patroni's `/patroni`), its free disk beside the data directory and the size of its WAL, and on the leader
/// the extensions every database holds and the prepared transactions waiting; and a link in place of a file the
/// upgrade writes as postgres.
public struct UpgradeSurvey: Sendable, Equatable {
    /// A member as read.
    public struct Member: Sendable, Equatable {
        /// The major release its PostgreSQL runs (15 for 150020); nil when it does not answer.
        public var major: Int?
        /// Bytes free on the filesystem of the data directory's parent.
        public var freeBytes: Int
        /// Bytes in `pg_wal`.
        public var walBytes: Int
        /// The files the upgrade writes as postgres that are links here: whoever runs code as postgres (any
        /// database superuser) can plant one, to a file of root's, say, and the upgrade would fail half way.
        public var plantedLinks: [String] = []
    }

    public var members: [String: Member]
    /// The extensions installed in any database of the leader (`plpgsql` aside), sorted.
    public var extensions: [String]
    /// Transactions prepared for two-phase commit and not yet finished (pg_upgrade refuses them).
    public var preparedTransactions: Int
    /// Tablespaces besides the two every cluster has (`pg_default`, `pg_global`).
    public var tablespaces = 0

    /// The survey of `model`'s members, the leader `leader` read for extensions and prepared transactions.
    /// - Throws: ``FlowError`` when a member cannot be read.
    public static func read(_ model: ClusterModel, leader: String, inventory: Inventory, fleet: Fleet) async throws
        -> UpgradeSurvey
    {
        let hosts = model.databaseHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { target, transport in
            let result = try await transport.run(
                probe(model, member: target.name, isLeader: target.name == leader),
                become: target.privileged, timeout: .seconds(60))
            guard result.succeeded else {
                throw FlowError(
                    "\(target.name) could not be read: \(result.stderrText.suffix(300))", hint: "nothing was changed")
            }
            return result.stdoutText
        }
        var survey = UpgradeSurvey(members: [:], extensions: [], preparedTransactions: 0)
        for (host, outcome) in zip(hosts, outcomes) {
            switch outcome {
            case .done(let text, _): survey.add(ProbeOutput(text: text), of: host, isLeader: host == leader)
            case .unreachable(let error), .failed(let error):
                throw FlowError("\(host) could not be read: \(error)", hint: "nothing was changed")
            }
        }
        return survey
    }

    /// Reads one member's probe output into the survey.
    mutating func add(_ output: ProbeOutput, of host: String, isLeader: Bool) {
        let number = { (key: String) in output.fields[key].flatMap { Int($0) } }
        members[host] = Member(
            major: number("server_version").map { $0 / 10000 }, freeBytes: number("free") ?? 0,
            walBytes: number("wal") ?? 0,
            plantedLinks: output.text.split(separator: "\n").filter { $0.hasPrefix("planted=") }
                .map { String($0.dropFirst("planted=".count)) })
        if isLeader {
            let named = output.text.split(separator: "\n").filter { $0.hasPrefix("extension=") }
                .map { String($0.dropFirst("extension=".count)) }
            extensions = Set(named).subtracting(["plpgsql"]).sorted()
            preparedTransactions = number("prepared") ?? 0
            tablespaces = number("tablespaces") ?? 0
        }
    }

    /// The shell that prints a member's `server_version=`, `free=`, `wal=`, `planted=` for each link and, on the leader, an
    /// `extension=` line for each extension of each database, `prepared=` and `tablespaces=`.
    static func probe(_ model: ClusterModel, member: String, isLeader: Bool) -> ShellCommand {
        let parent = (model.dataDirectory as NSString).deletingLastPathComponent
        var lines: [ShellCommand] = [
            PatroniAPI(model, member: member).get("/patroni")
                + " | python3 -c 'import json,sys; print(\"server_version=%s\" % json.load(sys.stdin).get(\"server_version\", \"\"))' || true",
            "echo free=$(df -B1 --output=avail \(parent) | tail -1)",
            "echo wal=$(du -sb \(model.dataDirectory + "/pg_wal") | cut -f1)",
            "[ ! -L \(UpgradePlays.pgUpgradeLog) ] || echo planted=\(UpgradePlays.pgUpgradeLog)",
        ]
        if isLeader {
            // Each database's own extensions, by a psql of its own (a name with spaces stays one word).
            let databases = model.postgres.run("SELECT datname FROM pg_database WHERE datallowconn")
            let extensions = "SELECT 'extension=' || extname FROM pg_extension"
            lines.append(
                "\(databases) | while IFS= read -r db; do printf '%s\\n' \(extensions) | runuser -u postgres -- "
                    + "psql -XAtq -v ON_ERROR_STOP=1 -p \(model.postgresPort) -d \"$db\" -f -; done")
            lines.append(
                "echo prepared=$(\(model.postgres.run("SELECT count(*) FROM pg_prepared_xacts")))")
            lines.append(
                "echo tablespaces=$(\(model.postgres.run("SELECT count(*) FROM pg_tablespace WHERE spcname NOT IN ('pg_default', 'pg_global')")))"
            )
        }
        return lines.joined(separator: "\n")
    }
}
