import Foundation
import KeelTestSupport
import Testing

extension LabTests {
    @Test(
        "a host this machine cannot reach is reached through another lab host as its jump host: unreachable without it, answering with it, refused when the jump host's key is not the recorded one",
        .lab(hosts: 2)
    )
    func throughJumpHost() async throws {
        try await Lab.blocking("h2") { try await jumpHostSteps() }
    }

    private func jumpHostSteps() async throws {
        let lab = try String(contentsOfFile: inventory, encoding: .utf8)
        let direct = FileManager.default.temporaryDirectory.appendingPathComponent("keel-jump-\(UUID().uuidString)")
            .path
        try lab.write(toFile: direct, atomically: true, encoding: .utf8)
        let blocked = try await KeelBinary.run(["ping", "-i", direct, "--limit", "h1,h2"])
        #expect(
            blocked.status != 0 && blocked.output.contains("h2 | UNREACHABLE") && blocked.output.contains("1 of 2"),
            "\(blocked)")

        let jumped = direct + ".jump"
        try lab.replacingOccurrences(
            of: "h2 ansible_host=10.213.0.12\n",
            with: "h2 ansible_host=10.213.0.12 ansible_ssh_common_args='-o ProxyJump=root@10.213.0.11'\n"
        )
        .write(toFile: jumped, atomically: true, encoding: .utf8)
        // The address, not the name: a deploy of the reference's files (`hostname=pgnode02`) renames the host.
        let reached = try await KeelBinary.run(["exec", "-i", jumped, "--limit", "h1,h2", "--", "hostname", "-I"])
        #expect(reached.status == 0 && reached.output.contains("h2 | ok | exit 0\n10.213.0.12"), "\(reached)")

        // known_hosts holding h2's key for h1, the jump host: the connection stops there, naming it.
        let knownHosts = try String(contentsOfFile: "/var/lib/keel-lab/known_hosts", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let key = { (address: String) in
            knownHosts.first { $0.hasPrefix(address + " ") }?.split(separator: " ").dropFirst().joined(separator: " ")
        }
        let impostor = try #require(key("10.213.0.12"))
        let wrong = direct + ".known_hosts"
        try knownHosts.map { $0.hasPrefix("10.213.0.11 ") ? "10.213.0.11 \(impostor)" : $0 }.joined(separator: "\n")
            .appending("\n").write(toFile: wrong, atomically: true, encoding: .utf8)
        let refused = try await KeelBinary.run([
            "exec", "-i", jumped, "--limit", "h2", "--known-hosts", wrong, "--", "hostname",
        ])
        #expect(
            refused.status != 0 && refused.output.contains("10.213.0.11") && refused.output.contains("CHANGED")
                && !refused.output.contains("h2 | ok"), "\(refused)")
    }
}
