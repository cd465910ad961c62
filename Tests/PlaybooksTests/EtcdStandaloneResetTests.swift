import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("Debian's standalone etcd member is cleared only when it is known to be empty")
struct EtcdStandaloneResetTests {
    /// Runs the reset's command with stand-ins for etcdctl (a standalone member whose `get` exits `getStatus`),
    /// systemctl, rm and touch; returns what rm was asked to remove.
    private func removals(getStatus: Int, keys: String) throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-etcd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = scratch.appendingPathComponent("rm.log").path
        let stubs = [
            "etcdctl": """
            case "$*" in
            *"member list"*) echo '8e9e05c52164694d, started, default, http://localhost:2380, http://localhost:2379, false';;
            *get*) printf '%s' \(shellQuote(keys)); exit \(getStatus);;
            esac
            """,
            "systemctl": "exit 0", "touch": "exit 0", "rm": "echo \"$*\" >> \(shellQuote(log))",
        ]
        for (name, body) in stubs {
            try Shell.writeExecutable(scratch.appendingPathComponent(name).path, "#!/bin/sh\n\(body)\n")
        }
        let (_, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let host = HostContext(name: "10.213.0.11", inventory: inventory, facts: Facts())
        let changes = try EtcdStandaloneReset().changes(from: ProbeOutput(text: "pending"), on: host)
        let command = try #require(changes.first?.shown.first)
        let (status, output) = try Shell.capture(
            "/bin/sh", ["-c", command], environment: ["PATH": scratch.path + ":/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }

    @Test("an empty standalone member is cleared; one whose keys could not be read (a timeout, auth) keeps its data")
    func failsClosed() throws {
        #expect(try removals(getStatus: 0, keys: "") == "-rf /var/lib/etcd/default\n")
        #expect(try removals(getStatus: 1, keys: "").isEmpty)
        #expect(try removals(getStatus: 0, keys: "/service/x/leader").isEmpty)
    }
}
