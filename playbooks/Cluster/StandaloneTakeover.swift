import Keel
import KeelSSH

/// Prepares a standalone PostgreSQL found in the cluster's data directory on the `[master]` host for Patroni to
/// take over, keeping its data: the superuser gets the cluster's password, the replication role is created, and
/// the data directory gets the postgresql.conf Patroni expects there (Debian's settings in /etc are not carried
/// over: declare them in `postgresql_parameters`).
/// Patroni, started later on that data directory, makes it the leader instead of running initdb. Hosts that
/// Patroni already manages, or without data, need nothing.
struct StandaloneTakeover: Resource {
    let model: ClusterModel

    var description: String { "standalone PostgreSQL taken over, its data kept" }

    private var connection: PostgresConnection { PostgresConnection(port: model.postgresPort) }
    private var cluster: String { "\(model.postgresVersion) main" }
    /// Patroni keeps the file a data directory brings as `postgresql.base.conf`; Debian's lives in /etc instead.
    private var configFile: String { model.dataDirectory + "/postgresql.conf" }

    var probe: String {
        """
        [ -e /etc/patroni/patroni.yml ] && { echo managed; exit 0; }
        [ -f \(shellQuote(model.dataDirectory + "/PG_VERSION")) ] || { echo empty; exit 0; }
        echo standalone
        [ -e \(shellQuote(configFile)) ] || echo unconfigured
        echo "SELECT rolname, rolsuper, rolreplication, coalesce(rolpassword, '') FROM pg_authid WHERE rolname IN (\(SQL.literal(model.superuser)), \(SQL.literal(model.replicationUser)));" \
            | \(connection.psql()) 2>/dev/null || echo stopped
        """
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let lines = output.text.split(separator: "\n").map(String.init)
        guard lines.first == "standalone" else { return [] }
        let roles = Dictionary(lines.dropFirst().map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count == 4 }.map { ($0[0], $0) }, uniquingKeysWith: { $1 })
        var changes: [Change] = []
        if lines.contains("unconfigured") {
            changes.append(Change("an empty postgresql.conf in the data directory for Patroni", commands: [
                "install -o postgres -g postgres -m 0600 /dev/null \(shellQuote(configFile))",
            ]))
        }
        if lines.contains("stopped") {
            changes.append(Change("start the standalone cluster \(cluster) to prepare it", commands: ["pg_ctlcluster \(cluster) start"]))
        }
        let wanted = [
            (model.superuser, model.superuserPassword, "SUPERUSER"),
            (model.replicationUser, model.replicationPassword, "REPLICATION"),
        ]
        for (name, password, attribute) in wanted {
            let current = roles[name]
            let hasAttribute = current?[attribute == "SUPERUSER" ? 1 : 2] == "t"
            if current == nil || !hasAttribute || !SCRAM.matches(current![3], password: password.reveal()) {
                let verb = current == nil ? "CREATE" : "ALTER"
                changes.append(Change("\(verb.lowercased()) role \(name) (\(attribute), the cluster's password)", commands: [
                    "\(verb) ROLE \(SQL.identifier(name)) LOGIN \(attribute) PASSWORD '…'",
                ]))
            }
        }
        return changes
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        let passwords = [model.superuser: model.superuserPassword, model.replicationUser: model.replicationPassword]
        for command in changes.flatMap(\.commands) {
            guard command.hasSuffix("PASSWORD '…'") else {
                try await host.run(command)
                continue
            }
            let name = passwords.keys.first { command.contains(SQL.identifier($0)) }!
            let verifier = SQL.literal(SCRAM.verifier(for: passwords[name]!.reveal()))
            try await connection.execute([command.replacingOccurrences(of: "'…'", with: verifier)], on: host)
        }
    }
}
