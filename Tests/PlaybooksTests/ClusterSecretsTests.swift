import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("The secrets file: never replaced when unreadable, locked while a run may write it, and lost secrets refused")
struct ClusterSecretsTests {
    /// A new directory holding an inventory path (the file itself need not exist).
    private func inventoryPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-secrets-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("hosts.ini").path
    }

    @Test("a secrets file that exists but cannot be read or parsed stops the run and stays as it was")
    func unreadable() throws {
        let inventory = try inventoryPath()
        let path = (inventory as NSString).deletingLastPathComponent + "/.keel-secrets.yml"
        let cases: [(bytes: [UInt8], reason: String)] = [
            ([0x70, 0x3A, 0x20, 0xFF, 0xFE, 0x0A], "is not UTF-8 text"),
            (Array("# header\npatroni_superuser_password kept\n".utf8), ".keel-secrets.yml:2: expected NAME: VALUE"),
        ]
        for (bytes, reason) in cases {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            #expect { try ClusterSecrets(besideInventory: inventory) } throws: { "\($0)".contains(reason) }
            #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect { try ClusterSecrets(besideInventory: inventory) } throws: { "\($0)".contains("cannot be read") }
    }

    @Test("a second run that may write the file waits for none: it is refused while the first holds the lock")
    func locked() throws {
        let inventory = try inventoryPath()
        var first: ClusterSecrets? = try ClusterSecrets(besideInventory: inventory)
        #expect { try ClusterSecrets(besideInventory: inventory) } throws: {
            "\($0)".contains("another keel run holds")
        }
        #expect(try ClusterSecrets(besideInventory: inventory, readOnly: true).generated.isEmpty)
        _ = first?.password(for: "x")
        first = nil
        _ = try ClusterSecrets(besideInventory: inventory)
    }

    @Test("discarding generated secrets keeps a file that was there, with what it held")
    func discard() throws {
        let inventory = try inventoryPath()
        let path = (inventory as NSString).deletingLastPathComponent + "/.keel-secrets.yml"
        try "# kept\n".write(toFile: path, atomically: true, encoding: .utf8)
        let secrets = try ClusterSecrets(besideInventory: inventory)
        _ = secrets.password(for: "patroni_superuser_password")
        #expect(secrets.generated == ["patroni_superuser_password"])
        try secrets.save()
        try secrets.discardGenerated()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try ClusterSecrets(besideInventory: inventory, readOnly: true).generated.isEmpty)
        #expect(
            try String(contentsOfFile: path, encoding: .utf8).contains("patroni_superuser_password") == false)
    }

    @Test("pre-flight refuses to replace any password a running cluster uses: Patroni's, an application's, VRRP's")
    func lostSecrets() throws {
        let (model, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let database = HostContext(name: "10.213.0.12", inventory: inventory, facts: Facts())
        let balancer = HostContext(name: "10.213.0.14", inventory: inventory, facts: Facts())
        let fresh = "os=debian 12\n"
        #expect(
            try Preflight(model: model, host: database.name).changes(from: ProbeOutput(text: fresh), on: database)
                .isEmpty)
        let preflight = Preflight(model: model, host: database.name)
        #expect(
            preflight.probe.contains(shellQuote("SELECT 'role=' || rolname FROM pg_roles WHERE rolname IN ('app');")))
        #expect {
            try preflight.changes(from: ProbeOutput(text: fresh + "patroni_deployed=1\nrole=app\n"), on: database)
        } throws: {
            "\($0)".contains(
                "already uses patroni_replication_password, patroni_restapi_password, patroni_superuser_password, user_app,"
            )
        }
        #expect {
            try preflight.changes(from: ProbeOutput(text: fresh + "role=app\n"), on: database)
        } throws: { "\($0)".contains("already uses user_app, but .keel-secrets.yml") }
        let keepalived = Preflight(model: model, host: balancer.name)
        #expect(keepalived.probe.contains("auth_pass /etc/keepalived/keepalived.conf"))
        #expect {
            try keepalived.changes(from: ProbeOutput(text: fresh + "vrrp_configured=1\n"), on: balancer)
        } throws: { "\($0)".contains("already uses vrrp_auth_pass") }
    }
}
