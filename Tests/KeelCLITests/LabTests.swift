import Foundation
import KeelTestSupport
import Testing

@Suite("keel on the lab's real hosts", .serialized, .enabled(if: Lab.isAvailable, Lab.skipReason))
struct LabTests {
    let inventory = Lab.inventory ?? ""

    /// curl as root on a member reaches Patroni's REST API: the member verified against the cluster's CA, the
    /// member's own API client certificate presented (the API answers no other).
    static let patroniCurl =
        "curl --cacert /etc/patroni/tls/ca.crt --cert /etc/patroni/tls/api/client.crt --key /etc/patroni/tls/api/client.key"

    @Test("keel ping reaches every lab host with strict host key checking", .lab(hosts: 5))
    func pingAll() async throws {
        let result = try await KeelBinary.run(["ping", "-i", inventory])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("5 of 5 hosts answered"))
    }

    @Test(
        "the web-demo playbook: changes, then none; a hand edit is planned with its diff, then fixed with its handler",
        .lab(hosts: 3)
    )
    func webDemo() async throws {
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("keel-events-\(UUID().uuidString)")
            .path
        let apply = ["apply", "-i", inventory, "--limit", "h1:h2:h3", "web-demo", "--events", events]
        let first = try await KeelBinary.run(apply)
        #expect(first.status == 0, "\(first)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 >= 4 })
        let page = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1", "--", "curl -s http://10.213.0.12:8080/",
        ])
        #expect(page.output.contains("<title>h2</title>"), "\(page)")

        let second = try await KeelBinary.run(apply)
        #expect(second.status == 0, "\(second)")
        let noop = try EventStream(path: events)
        #expect(noop.changedPerHost == ["h1": 0, "h2": 0, "h3": 0])
        #expect(noop.handlers.isEmpty)

        let config = "/etc/nginx/sites-enabled/keel.conf"
        let before = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h2", "--",
            "sed -i 's/index index.html;/index index.htm;/' \(config) && sha256sum \(config)",
        ])
        let check = try await KeelBinary.run(apply + ["--check"])
        #expect(check.status == 2, "\(check)")
        #expect(check.output.contains("-    index index.htm;\n        +    index index.html;"), "\(check)")
        #expect(try EventStream(path: events).changedSteps == ["h2: template \(config)"])
        let after = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h2", "--", "sha256sum \(config)"])
        #expect(
            before.output.split(separator: "\n").dropFirst().first
                == after.output.split(separator: "\n").dropFirst().first)

        let fix = try await KeelBinary.run(apply)
        #expect(fix.status == 0, "\(fix)")
        let fixed = try EventStream(path: events)
        #expect(fixed.changedSteps == ["h2: template \(config)"])
        #expect(fixed.handlers == ["h2: restart nginx"])
    }

    @Test(
        "lab hosts have no route out: only the bridge is reachable", .lab(hosts: 5)
    )
    func isolated() async throws {
        let routes = try await KeelBinary.run([
            "exec", "-i", inventory, "--", "ip -4 route; ping -c1 -W2 10.213.0.1 >/dev/null && echo bridge-ok",
        ])
        #expect(routes.status == 0, "\(routes)")
        #expect(!routes.output.contains("default"))
        #expect(routes.output.components(separatedBy: "bridge-ok").count == 6)
    }

    @Test(
        "a host powered off cleanly is unreachable, and boots again with the same disk", .lab(hosts: 5)
    )
    func poweroff() async throws {
        _ = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h5", "--", "echo kept > /root/disk-marker"])
        try await Lab.run("poweroff", "h5")
        let down = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h5", "--connect-timeout", "2"])
        #expect(down.status == 1)
        try await Lab.run("start", "h5")
        let back = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h5", "--", "cat /root/disk-marker"])
        #expect(back.output.contains("h5 | ok | exit 0\nkept\n"), "\(back)")
    }

    @Test(
        "a package installs through keel exec on two hosts, from the lab's apt proxy", .lab(hosts: 2)
    )
    func installPackage() async throws {
        let install = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1:h2", "--timeout", "300", "--",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cowsay >/dev/null 2>&1",
        ])
        #expect(install.status == 0, "\(install)")
        let check = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1:h2", "--", "/usr/games/cowsay moo | grep -c moo",
        ])
        #expect(check.output.contains("h1 | ok | exit 0\n1\n"), "\(check)")
        #expect(check.output.contains("h2 | ok | exit 0\n1\n"), "\(check)")
    }

    @Test(
        "a killed host is unreachable with a clear reason, and back once started again", .lab(hosts: 3)
    )
    func killAndStart() async throws {
        try await Lab.run("kill", "h3")
        let down = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h3", "--connect-timeout", "2"])
        #expect(down.status == 1)
        #expect(
            down.output.contains("h3 | UNREACHABLE | 10.213.0.13: connect: no answer from 10.213.0.13 port 22"),
            "\(down)")
        try await Lab.run("start", "h3")
        let up = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h3"])
        #expect(up.status == 0, "\(up)")
    }

    @Test(
        "a pulled cable makes a host unreachable; plugged back, it answers again", .lab(hosts: 4)
    )
    func cable() async throws {
        try await Lab.run("net-down", "h4")
        let down = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h4", "--connect-timeout", "2"])
        try await Lab.run("net-up", "h4")
        #expect(down.status == 1)
        #expect(down.output.contains("h4 | UNREACHABLE"))
        var up = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h4"])
        for _ in 0..<10 where up.status != 0 {
            try await Task.sleep(for: .milliseconds(500))
            up = try await KeelBinary.run(["ping", "-i", inventory, "--limit", "h4"])
        }
        #expect(up.status == 0, "\(up)")
    }

    @Test(
        "lab reset gives fresh disks and keeps the host keys, so known_hosts stays valid", .lab(hosts: 5)
    )
    func reset() async throws {
        _ = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h5", "--", "touch /root/marker"])
        try await Lab.run("reset", "5")
        let after = try await KeelBinary.run([
            "exec", "-i", inventory, "--", "test ! -e /root/marker && ! dpkg -s cowsay >/dev/null 2>&1",
        ])
        #expect(after.status == 0, "\(after)")
        #expect(after.output.contains("5 of 5 hosts succeeded"))
    }
}
