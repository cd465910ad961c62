import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// Every name lands quoted for where it lands: the cluster's roles are refused when they are more than a word,
/// and are quoted anyway in the shell, libpq's connection strings, pg_hba and patroni.yml.
@Suite("names quoted for where they land")
struct NameQuotingTests {
    @Test(
        "a cluster role that is more than one word is refused with its variable and line",
        arguments: [
            ("patroni_replication_username", "r$(touch${IFS}/tmp/keel-pwned)"),
            ("patroni_replication_username", "all samenet trust #"),
            ("patroni_replication_username", "r host=10.0.0.9"),
            ("patroni_superuser_username", "postgres,app"),
            ("patroni_superuser_username", "9lives"),
            ("patroni_restapi_username", "a: b"),
        ])
    func roleNames(variable: String, value: String) {
        let vars = ClusterModelTests.vars + "\n\(variable): \(JSONValue.string(value).json)\n"
        let error = ClusterModelTests().error(vars: vars)
        #expect(error?.message.hasPrefix("\(variable) '\(value)' cannot be used: a role of the cluster") == true)
        #expect(error?.location?.line == 19)
    }

    @Test("the replication login's failure is reported as text, never run: psql's error and the role name alike")
    func replicationLoginQuoting() throws {
        let (model, directory) = try ClusterModelTests().load()
        var hostile = model
        hostile.logins.replication.name = "r$(touch ${MARK})"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-login-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let mark = scratch.appendingPathComponent("pwned").path
        // A psql that fails as a server would, its message holding shell syntax.
        try Shell.writeExecutable(
            scratch.appendingPathComponent("psql").path,
            "#!/bin/sh\necho 'FATAL: no pg_hba.conf entry $(touch '\"$MARK\"')' >&2\nexit 2\n")
        // A clock that moves a minute a call: the login's 30 s of tries end at once.
        try Shell.writeExecutable(
            scratch.appendingPathComponent("date").path,
            "#!/bin/sh\nn=$(cat \"$0.now\" 2>/dev/null || echo 0); echo $((n + 60)) > \"$0.now\"; echo $n\n")
        try Shell.writeExecutable(scratch.appendingPathComponent("sleep").path, "#!/bin/sh\n")
        let login = ReplicationLogin(model: hostile, host: "10.213.0.13")
        let change = try #require(
            try login.changes(
                from: ProbeOutput(text: "new"), on: ClusterModelTests.host("10.213.0.13", directory)
            ).first)
        let result = try Shell.capture(
            "/bin/sh", ["-c", change.actions[0].description], input: "secret\n",
            environment: ["PATH": scratch.path + ":/usr/bin:/bin", "MARK": mark])
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: mark), "nothing in a name or psql's message ran")
        #expect(
            result.output.contains(
                "10.213.0.13 cannot log in for replication as r$(touch ${MARK}) to 10.213.0.12 (10.213.0.12): "
                    + "FATAL: no pg_hba.conf entry $(touch"),
            "\(result.output)")
    }

    @Test("members replicate over TLS verified against the cluster's CA; a plain replication login is rejected")
    func memberTLS() throws {
        let (model, directory) = try ClusterModelTests().load()
        let host = try ClusterModelTests.host("10.213.0.11", directory)
        let patroni = try ClusterModelTests.rendered(
            PatroniNodeRole(host: host, model: model, wheel: []).configuration, "/etc/patroni/patroni.yml", on: host)
        #expect(
            patroni.contains("    \"replication\":\n      username: \"replicator\"\n      sslmode: \"verify-full\"\n"))
        #expect(patroni.contains("    \"superuser\":\n      username: \"postgres\"\n      sslmode: \"verify-full\"\n"))
        #expect(patroni.contains("sslrootcert: \"/etc/patroni/tls/ca.crt\""))
        let hba = patroni.components(separatedBy: "\n").filter { $0.hasPrefix("    - ") }
        let reject = try #require(hba.firstIndex(of: "    - \"hostnossl replication all all reject\""))
        for member in ["10.213.0.11", "10.213.0.12", "10.213.0.13"] {
            let line = try #require(
                hba.firstIndex(of: "    - \"hostssl replication \\\"replicator\\\" \(member)/32 scram-sha-256\""))
            #expect(reject < line)
        }
        #expect(!hba.contains { $0.contains("- \"host replication") && !$0.contains("127.0.0.1") })
        #expect(
            model.memberConnection(to: "10.213.0.12", user: "replicator", database: "replication")
                == "host='10.213.0.12' port=5432 user='replicator' dbname='replication' sslmode=verify-full "
                + "sslrootcert='/etc/patroni/tls/ca.crt'")
    }

    @Test("a database name holding '=' or quotes reaches psql as a name, never as a connection string")
    func databaseConninfo() throws {
        let command = PostgresConnection(port: 5432).psql(database: "app host=127.0.0.1 port=9 it's\\")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-psql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Shell.writeExecutable(
            scratch.appendingPathComponent("runuser").path, "#!/bin/sh\nfor a; do printf '<%s>\\n' \"$a\"; done\n")
        let output = try Shell.run("/bin/sh", ["-c", "PATH=\(scratch.path):$PATH; " + command.text])
        #expect(output.contains("<dbname='app host=127.0.0.1 port=9 it\\'s\\\\'>"), "\(output)")
    }
}

extension NameQuotingTests {
    @Test("add-node waits for the lines Patroni writes to pg_hba.conf: the model's, quoted names as they are")
    func hbaApplied() throws {
        let (model, directory) = try ClusterModelTests().load()
        let file = directory + "/pg_hba.conf"
        let command = PatroniPlays.hbaApplied(model).text.replacingOccurrences(
            of: shellQuote(model.dataDirectory + "/pg_hba.conf"), with: shellQuote(file))
        try
            ("# Do not edit this file manually!\n# It will be overwritten by Patroni!\n"
            + model.memberHBA.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try Shell.capture("/bin/sh", ["-c", command]).status == 0)
        #expect(model.memberHBA.contains("hostssl replication \"replicator\" 10.213.0.12/32 scram-sha-256"))
        try ("# Do not edit\n" + model.memberHBA.dropLast().joined(separator: "\n") + "\n").write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect(try Shell.capture("/bin/sh", ["-c", command]).status != 0, "a line still missing")
    }
}
