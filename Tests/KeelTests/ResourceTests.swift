import Foundation
import Testing

@testable import Keel

/// Each resource's check → changes logic, from recorded probe output; no host needed.
@Suite("Resources plan from recorded probe output")
struct ResourceTests {
    let host = HostContext(
        name: "pg1", inventory: try! InventoryFixture(["hosts.ini": "[db]\npg1\n"]).load("hosts.ini"), facts: Facts())

    @Test("package: installed is converged, missing ones are installed in one command")
    func package() throws {
        let resource = Package("nginx-light", "curl")
        #expect(
            try resource.changes(from: ProbeOutput(text: "nginx-light=installed\ncurl=installed"), on: host).isEmpty)
        let changes = try resource.changes(from: ProbeOutput(text: "nginx-light=missing\ncurl=installed"), on: host)
        #expect(changes.map(\.summary) == ["install nginx-light"])
        #expect(
            changes[0].shown[0].contains(
                "timeout 900 apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -o Acquire::http::Timeout=30 -o Acquire::Retries=3 nginx-light"
            ))
        #expect(changes[0].shown[0].contains("for attempt in 1 2 3; do timeout 120 apt-get update"))
        let removal = try Package("telnet", state: .absent).changes(
            from: ProbeOutput(text: "telnet=installed"), on: host)
        #expect(removal.map(\.summary) == ["remove telnet"])
    }

    @Test(
        "service: start, enable and daemon-reload only where needed; a missing unit is an error unless the service is to be stopped and disabled"
    )
    func service() throws {
        let nginx = Service("nginx", state: .started, enabled: true)
        #expect(
            try nginx.changes(
                from: ProbeOutput(text: "active=active\nenabled=enabled\nreload=no\nload=loaded"), on: host
            ).isEmpty)
        let changes = try nginx.changes(
            from: ProbeOutput(text: "active=inactive\nenabled=disabled\nreload=yes\nload=loaded"), on: host)
        #expect(
            changes.flatMap(\.shown) == ["systemctl daemon-reload", "systemctl enable nginx", "systemctl start nginx"])
        #expect(throws: ResourceError.self) {
            try nginx.changes(from: ProbeOutput(text: "active=inactive\nenabled=\nreload=\nload=not-found"), on: host)
        }
        let stopped = try Service("postgresql", state: .stopped, enabled: false)
            .changes(from: ProbeOutput(text: "active=active\nenabled=enabled\nreload=no\nload=loaded"), on: host)
        #expect(stopped.flatMap(\.shown) == ["systemctl disable postgresql", "systemctl stop postgresql"])
        let gone = Service("etcd", state: .stopped, enabled: false)
        #expect(gone.description == "service etcd stopped and disabled")
        // Purged with its package, or a changed unit that is stopped and disabled: nothing to reload or do.
        #expect(
            try gone.changes(from: ProbeOutput(text: "active=inactive\nenabled=\nload=not-found"), on: host).isEmpty)
        #expect(
            try gone.changes(
                from: ProbeOutput(text: "active=inactive\nenabled=disabled\nreload=yes\nload=loaded"), on: host
            ).isEmpty)
        // A static unit cannot be disabled: asking for it every run would never converge.
        #expect(
            try gone.changes(from: ProbeOutput(text: "active=inactive\nenabled=static\nload=loaded"), on: host).isEmpty)
        // Another name of a unit (sshd for ssh.service) shows that unit's state: disabling it would disable ssh.
        let alias = "id=ssh.service\nactive=inactive\nenabled=enabled\nload=loaded"
        #expect(
            try Service("sshd", state: nil, enabled: false).changes(from: ProbeOutput(text: alias), on: host).isEmpty)
        let own = "id=etcd.service\nactive=inactive\nenabled=enabled\nload=loaded"
        #expect(try gone.changes(from: ProbeOutput(text: own), on: host).flatMap(\.shown) == ["systemctl disable etcd"])
    }

    @Test("file: same checksum and attributes is converged; each difference is its own change")
    func file() throws {
        let file = File("/etc/motd", content: "hello\n", mode: 0o644, owner: "root", group: "root")
        let sum = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        #expect(
            try file.changes(
                from: ProbeOutput(text: "kind=file\nmode=644\nowner=root\ngroup=root\nsha256=\(sum)"), on: host
            ).isEmpty)
        let drifted = try file.changes(
            from: ProbeOutput(text: "kind=file\nmode=600\nowner=root\ngroup=adm\nsha256=00"), on: host)
        #expect(drifted.map(\.summary) == ["contents (6 bytes)", "mode 0600 → 0644", "group adm → root"])
        #expect(drifted[0].content?.desired == Array("hello\n".utf8))
        let missing = try file.changes(from: ProbeOutput(text: "kind=missing"), on: host)
        #expect(missing.map(\.summary) == ["create (6 bytes, mode 0644)"])
        #expect(try File.absent("/etc/motd").changes(from: ProbeOutput(text: "kind=missing"), on: host).isEmpty)
        #expect(throws: ResourceError.self) {
            try file.changes(from: ProbeOutput(text: "sha256sum: permission denied"), on: host)
        }
    }

    @Test("a secret file is never more open than 0600 and its contents are marked secret")
    func secretFile() throws {
        let file = File("/etc/app/token", contents: .secret(Secret("t0ken")), mode: 0o644)
        #expect(file.mode == 0o600)
        let changes = try file.changes(from: ProbeOutput(text: "kind=missing"), on: host)
        #expect(changes.first?.content?.isSecret == true)
        #expect(!changes.map(\.summary).joined().contains("t0ken"))
    }

    @Test("directory: created with mode and owner; a file in the way is an error")
    func directory() throws {
        let directory = Directory("/srv/data", mode: 0o750, owner: "postgres", group: "postgres")
        let created = try directory.changes(from: ProbeOutput(text: "kind=missing"), on: host)
        #expect(
            created.flatMap(\.shown) == [
                "mkdir -p -m 0750 -- /srv/data && { [ ! -g /srv/data ] || chmod 00750 /srv/data; } && chown postgres:postgres /srv/data"
            ])
        // chmod and, for root's own, chown run only when the shell's tests find a setgid parent's bit or group.
        let rootsOwn = try Directory("/srv/app").changes(from: ProbeOutput(text: "kind=missing"), on: host)
        #expect(
            rootsOwn.flatMap(\.shown) == [
                "mkdir -p -m 0755 -- /srv/app && { [ ! -g /srv/app ] || chmod 00755 /srv/app; } && "
                    + "{ { [ -O / ] && [ -O /srv/app ] && [ -G /srv/app ]; } || chown root:root /srv/app; }"
            ])
        #expect(throws: ResourceError.self) { try directory.changes(from: ProbeOutput(text: "kind=file"), on: host) }
    }

    @Test("in a directory another account controls, that account makes, writes, re-modes and removes; root never")
    func controlledPaths() throws {
        let postgres = "account=postgres\n"
        let directory = Directory("/var/lib/postgresql/.ssh", mode: 0o700, owner: "postgres", group: "postgres")
        let made = try directory.changes(from: ProbeOutput(text: postgres + "kind=missing"), on: host)
        let mkdir = try #require(made.flatMap(\.shown).first)
        #expect(mkdir.contains("runuser -u postgres -- sh -c") && !mkdir.contains("chown"), "\(mkdir)")

        let key = File("/var/lib/postgresql/.ssh/id_ed25519", content: "k\n", mode: 0o600, owner: "postgres")
        let written = try key.changes(from: ProbeOutput(text: postgres + "kind=missing"), on: host)
        #expect(
            written.flatMap(\.shown) == [
                "upload /var/lib/postgresql/.ssh/id_ed25519 (2 bytes, mode 0600 owner postgres:root, written as postgres)"
            ])
        #expect(written.first?.content?.readAs == "postgres")
        // A link planted where the file goes: replaced as postgres, its target never read for a diff.
        let linked = try key.changes(from: ProbeOutput(text: postgres + "kind=other"), on: host)
        #expect(linked.first?.content?.showsCurrent == false)
        #expect(linked.flatMap(\.shown).first?.hasPrefix("if [ \"$(id -un)\" = postgres ]") == true)
        // A file of root's there is replaced by postgres's own, not chowned by root.
        let rootOwned = try key.changes(
            from: ProbeOutput(text: postgres + "kind=file\nmode=600\nowner=root\ngroup=root\nsha256=x"), on: host)
        #expect(rootOwned.flatMap(\.shown).allSatisfy { !$0.hasPrefix("chown") }, "\(rootOwned.flatMap(\.shown))")
        let remode = try key.changes(
            from: ProbeOutput(
                text: postgres
                    + "kind=file\nmode=644\nowner=postgres\ngroup=root\nsha256=\(sha256Hex(Array("k\n".utf8)))"),
            on: host)
        #expect(remode.flatMap(\.shown).first?.contains("runuser -u postgres -- sh -c 'chmod 00600") == true)
        // Root cannot be named the owner of a file postgres controls.
        let rootFile = File("/var/lib/postgresql/mark", content: "x")
        #expect(throws: ResourceError.self) {
            try rootFile.changes(from: ProbeOutput(text: postgres + "kind=missing"), on: host)
        }
        let gone = try File.absent("/var/lib/postgresql/.ssh/old").changes(
            from: ProbeOutput(text: postgres + "kind=file\nmode=600\nowner=postgres\ngroup=postgres"), on: host)
        #expect(gone.flatMap(\.shown).first?.contains("runuser -u postgres -- sh -c 'rm -rf --") == true)
    }

    @Test("command: a satisfied guard skips it; without a guard it always runs")
    func command() throws {
        let guarded = Command("pg_createcluster 15 main", creates: "/etc/postgresql/15/main")
        #expect(guarded.probe.contains("[ -e /etc/postgresql/15/main ]"))
        #expect(try guarded.changes(from: ProbeOutput(text: "guard=satisfied"), on: host).isEmpty)
        #expect(try guarded.changes(from: ProbeOutput(text: "guard=unsatisfied"), on: host).count == 1)
        #expect(!guarded.alwaysChanges)
        let unguarded = Command("date")
        #expect(unguarded.alwaysChanges)
        #expect(try unguarded.changes(from: ProbeOutput(text: "guard=none"), on: host).count == 1)
    }

    @Test("line in file: replaces the last matching line, else appends; unchanged when present")
    func lineInFile() throws {
        let resource = LineInFile("/etc/environment", line: "EDITOR=vi", matching: "^EDITOR=")
        #expect(try resource.edited("A=1\nEDITOR=nano\n") == "A=1\nEDITOR=vi\n")
        #expect(try resource.edited("A=1") == "A=1\nEDITOR=vi\n")
        #expect(try resource.edited("") == "EDITOR=vi\n")
        let encoded = Data("A=1\nEDITOR=vi\n".utf8).base64EncodedString()
        #expect(try resource.changes(from: ProbeOutput(text: "content=\(encoded)"), on: host).isEmpty)
    }

    @Test("block in file: replaced between its markers, appended once, other lines untouched")
    func blockInFile() throws {
        let resource = BlockInFile("/etc/hosts", name: "cluster", block: "10.0.0.1 pg1\n10.0.0.2 pg2\n")
        let appended = try resource.edited("127.0.0.1 localhost\n")
        #expect(
            appended == "127.0.0.1 localhost\n# BEGIN KEEL cluster\n10.0.0.1 pg1\n10.0.0.2 pg2\n# END KEEL cluster\n")
        #expect(try resource.edited(appended) == appended)
        let old = "a\n# BEGIN KEEL cluster\nstale\n# END KEEL cluster\nz\n"
        #expect(
            try resource.edited(old) == "a\n# BEGIN KEEL cluster\n10.0.0.1 pg1\n10.0.0.2 pg2\n# END KEEL cluster\nz\n")
        let encoded = Data(appended.utf8).base64EncodedString()
        #expect(try resource.changes(from: ProbeOutput(text: "content=\(encoded)"), on: host).isEmpty)
        #expect(try resource.changes(from: ProbeOutput(text: "missing=1"), on: host).first?.summary == "create")
    }

    @Test("sysctl: persisted and live values; a refused value is tolerated when asked")
    func sysctl() throws {
        let forward = Sysctl("net.ipv4.ip_nonlocal_bind", "1")
        #expect(
            try forward.changes(from: ProbeOutput(text: "live=1\npersisted=net.ipv4.ip_nonlocal_bind = 1"), on: host)
                .isEmpty)
        #expect(try forward.changes(from: ProbeOutput(text: "live=0\npersisted="), on: host).count == 2)
        let tolerated = Sysctl("vm.swappiness", "1", tolerateRefusal: true)
        #expect(
            try tolerated.changes(from: ProbeOutput(text: "live=60\npersisted=vm.swappiness = 1"), on: host).isEmpty)
    }

    @Test("user and group: created when missing, corrected when different")
    func userAndGroup() throws {
        #expect(
            try Group("postgres").changes(from: ProbeOutput(text: "exists=0"), on: host).flatMap(\.shown) == [
                "groupadd --system postgres"
            ])
        let user = User("postgres", group: "postgres", home: "/var/lib/postgresql")
        #expect(
            try user.changes(
                from: ProbeOutput(text: "home=/var/lib/postgresql\nshell=/bin/bash\ngid=110\ngroup=postgres"), on: host
            ).isEmpty)
        let created = try user.changes(from: ProbeOutput(text: "missing=1"), on: host).flatMap(\.shown)
        #expect(
            created == [
                "useradd --system --shell /bin/bash --create-home --home-dir /var/lib/postgresql --gid postgres postgres"
            ])
    }

    @Test("wait-for: ready is converged; otherwise it waits")
    func waitFor() throws {
        let wait = WaitFor.port(8008)
        #expect(try wait.changes(from: ProbeOutput(text: "ready=1"), on: host).isEmpty)
        #expect(try wait.changes(from: ProbeOutput(text: "ready=0"), on: host).count == 1)
    }
}
