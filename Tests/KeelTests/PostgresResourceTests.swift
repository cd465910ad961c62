import Foundation
import KeelTestSupport
import Testing

@testable import Keel

@Suite("PostgreSQL roles, databases and extensions plan from recorded psql output")
struct PostgresResourceTests {
    let host = HostContext(
        name: "pg1", inventory: try! InventoryFixture(["hosts.ini": "[db]\npg1\n"]).load("hosts.ini"), facts: Facts())
    static let pencil =
        "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="

    @Test("SCRAM-SHA-256 verifiers match Python's hashlib for the RFC 7677 salt")
    func scram() throws {
        let salt = [UInt8](try #require(Data(base64Encoded: "W22ZaJ0SNY7soEsUEjb6gQ==")))
        #expect(SCRAM.verifier(for: "pencil", salt: salt, iterations: 4096) == Self.pencil)
        #expect(SCRAM.matches(Self.pencil, password: "pencil"))
        #expect(!SCRAM.matches(Self.pencil, password: "pencil2"))
        // A verifier read from the server with a huge iteration count is not recomputed: the password is set again.
        let huge = Self.pencil.replacingOccurrences(of: "$4096:", with: "$2000000000:")
        #expect(!SCRAM.matches(huge, password: "pencil"))
        #expect(SCRAM.matches(SCRAM.verifier(for: "fresh"), password: "fresh"))
    }

    @Test("a role with the right attributes and password is converged; a wrong password changes only that")
    func role() throws {
        // Columns: super, createdb, createrole, inherit, login, replication, bypassrls, verifier.
        let replicator = "found|f|f|f|t|t|t|f|\(Self.pencil)"
        let role = PostgresRole(
            "replicator", password: Secret("pencil"), attributes: [.login: true, .replication: true])
        #expect(try role.changes(from: ProbeOutput(text: replicator), on: host).isEmpty)
        let changed = try PostgresRole(
            "replicator", password: Secret("other"), attributes: [.login: true, .replication: true]
        )
        .changes(from: ProbeOutput(text: replicator), on: host)
        #expect(changed.map(\.summary) == ["password"])
        #expect(!changed.flatMap(\.shown).joined().contains("other"))
        let created = try role.changes(from: ProbeOutput(text: ""), on: host)
        #expect(
            created.flatMap(\.shown) == [
                #"psql: CREATE ROLE "replicator" LOGIN REPLICATION PASSWORD '***'"#
            ])
        #expect(throws: ResourceError.self) { try role.changes(from: ProbeOutput(text: "@@unreachable"), on: host) }
        #expect(try role.changes(from: ProbeOutput(text: "@@standby"), on: host).isEmpty)
        // The primary's first line says it is one; a standby's rows after its line are not read.
        #expect(try role.changes(from: ProbeOutput(text: "@@primary\n" + replicator), on: host).isEmpty)
        #expect(try role.changes(from: ProbeOutput(text: "@@primary"), on: host).map(\.summary) == ["create"])
        #expect(try role.changes(from: ProbeOutput(text: "@@standby\n"), on: host).isEmpty)
    }

    @Test("only the attributes named are managed: a user's REPLICATION granted elsewhere survives; NO… forms apply")
    func attributes() throws {
        let cdc = "found|f|f|f|t|t|t|f|"
        #expect(try PostgresRole("cdc").changes(from: ProbeOutput(text: cdc), on: host).isEmpty)
        let flags = try #require(RoleAttribute.parse("login, createdb NOREPLICATION"))
        #expect(flags == [.login: true, .createdb: true, .replication: false])
        let changed = try PostgresRole("cdc", attributes: flags).changes(from: ProbeOutput(text: cdc), on: host)
        #expect(changed.flatMap(\.shown) == [#"psql: ALTER ROLE "cdc" CREATEDB NOREPLICATION"#])
        #expect(RoleAttribute.parse("LOGIN,ADMIN") == nil)
        #expect(RoleAttribute.parse("") == [:])
    }

    @Test("a name holding a newline and the old here-document's end marker reaches psql whole, and runs nothing")
    func probeQuoting() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A stand-in for runuser that prints what psql would read.
        let runuser = scratch.appendingPathComponent("runuser").path
        try Shell.writeExecutable(runuser, "#!/bin/sh\ncat\n")
        let marker = scratch.appendingPathComponent("pwned").path
        let name = "app\nKEEL_SQL\ntouch \(marker)\n'$(touch \(marker))"
        let probe = PostgresRole(name).probe
        let (status, output) = try Shell.capture(
            "/bin/sh", ["-c", probe], environment: ["PATH": scratch.path + ":/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(output.contains("WHERE rolname = \(SQL.literal(name));"))
    }

    @Test("identifiers and literals are quoted, so a hostile name stays a name")
    func quoting() {
        #expect(SQL.identifier(#"app"; DROP TABLE x; --"#) == #""app""; DROP TABLE x; --""#)
        #expect(SQL.literal("it's") == "'it''s'")
        // Inside the probe's one shell-quoted word.
        #expect(PostgresRole("o'hara").probe.contains(#"rolname = '\''o'\'''\''hara'\''"#))
    }

    @Test("database owner and extension presence")
    func databaseAndExtension() throws {
        let database = PostgresDatabase("app", owner: "app")
        #expect(try database.changes(from: ProbeOutput(text: "found|app"), on: host).isEmpty)
        #expect(
            try database.changes(from: ProbeOutput(text: "found|postgres"), on: host).flatMap(\.shown) == [
                #"psql: ALTER DATABASE "app" OWNER TO "app""#
            ])
        #expect(
            try database.changes(from: ProbeOutput(text: ""), on: host).flatMap(\.shown) == [
                #"psql: CREATE DATABASE "app" OWNER "app""#
            ])
        let extensionResource = PostgresExtension("pg_stat_statements", database: "app")
        #expect(try extensionResource.changes(from: ProbeOutput(text: "found"), on: host).isEmpty)
        #expect(try extensionResource.changes(from: ProbeOutput(text: ""), on: host).count == 1)
    }
}
