import Keel

/// Prepares a standalone PostgreSQL found in the cluster's data directory on the `[master]` host for Patroni to
/// take over, keeping its data: the superuser gets the cluster's password, the replication role is created, and
/// the data directory gets the postgresql.conf Patroni expects there (Debian's settings in /etc are not carried
/// over: declare them in `postgresql_parameters`).
/// Patroni, started later on that data directory, makes it the leader instead of running initdb. Hosts that a
/// Patroni already manages (Keel's, or an older one being replaced), or without data, need nothing.
struct StandaloneTakeover: Resource {
    let model: ClusterModel

    var description: String { "takeover of a standalone PostgreSQL in the data directory, if one is there" }

    private var cluster: String { "\(model.postgresVersion) main" }
    /// Patroni keeps the file a data directory brings as `postgresql.base.conf`; Debian's lives in /etc instead.
    private var configFile: String { model.dataDirectory + "/postgresql.conf" }

    /// The roles Patroni needs, with the cluster's passwords.
    private var roles: [PostgresRole] {
        [
            PostgresRole(
                model.logins.superuser.name, password: model.logins.superuser.password,
                attributes: [.login: true, .superuser: true, .replication: true], connection: model.postgres),
            PostgresRole(
                model.logins.replication.name, password: model.logins.replication.password,
                attributes: [.login: true, .replication: true], connection: model.postgres),
        ]
    }

    /// Each role's own probe follows a `@@role` line, in a subshell of its own.
    var probe: String {
        """
        [ -e /etc/patroni/patroni.yml ] || systemctl is-active -q patroni && { echo managed; exit 0; }
        [ -f \(shellQuote(model.dataDirectory + "/PG_VERSION")) ] || { echo empty; exit 0; }
        echo standalone
        [ -e \(shellQuote(configFile)) ] || echo unconfigured
        echo 'SELECT 1;' | \(model.postgres.psql()) >/dev/null 2>&1 || { echo stopped; exit 0; }
        """ + roles.map { "\necho @@role; (\n\($0.probe)\n)" }.joined()
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let (lines, roleOutputs) = Self.split(output.text)
        guard lines.first == "standalone" else { return [] }
        var changes: [Change] = []
        if lines.contains("unconfigured") {
            changes.append(
                Change(
                    "an empty postgresql.conf in the data directory for Patroni",
                    .shell("install -o postgres -g postgres -m 0600 /dev/null \(configFile)")))
        }
        if lines.contains("stopped") {
            // The roles are planned once it runs (see apply).
            changes.append(
                Change(
                    "start the standalone cluster \(cluster) to give its roles the cluster's passwords",
                    .shell("pg_ctlcluster \(model.postgresVersion) main start")))
            return changes
        }
        for (role, roleOutput) in zip(roles, roleOutputs) {
            changes += try role.changes(from: roleOutput, on: host).map {
                Change("\($0.summary) (\(role.name))", actions: $0.actions)
            }
        }
        return changes
    }

    /// Takes the planned actions, then converges the roles against the running server with the role resources'
    /// own planning: a cluster started just now had its roles left out of the plan.
    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        try await host.perform(changes)
        let (_, roleOutputs) = Self.split(try await host.run(probe).stdoutText)
        for (role, roleOutput) in zip(roles, roleOutputs) {
            try await host.perform(try role.changes(from: roleOutput, on: host.context))
        }
    }

    /// The probe's own lines, and each role probe's output (the lines after each `@@role` line).
    private static func split(_ text: String) -> (lines: [String], roles: [ProbeOutput]) {
        var sections: [[Substring]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "@@role" { sections.append([]) } else { sections[sections.count - 1].append(line) }
        }
        return (
            sections[0].map(String.init), sections.dropFirst().map { ProbeOutput(text: $0.joined(separator: "\n")) }
        )
    }
}
