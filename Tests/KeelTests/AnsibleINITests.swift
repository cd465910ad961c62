import Foundation
import KeelTestSupport
import Testing

@testable import Keel

@Suite("INI inventories read as Ansible reads them: comments, line endings, a byte-order mark, UTF-8 only")
struct AnsibleINITests {
    @Test("comments after a section header, a host's line (even within a word) and a literal value")
    func comments() throws {
        let fixture = try InventoryFixture([
            "hosts": """
            [etcd_cluster]  # recommendation: 3, or 5-7 nodes
            pg1 hostname=pgnode01 postgresql_exists=false # patroni_tags="datacenter=dc1"
            pg2 quoted='c#d' tag=a#b dropped=1
            [all:vars]
            patroni_ttl=30  # seconds
            ansible_ssh_pass='secret'  # "sshpass" package is required
            plain=yes # not a literal, so the comment is part of it
            """
        ])
        let inventory = try fixture.load("hosts")
        #expect(inventory.hostNames(in: "etcd_cluster") == ["pg1", "pg2"])
        let pg1 = inventory.variables(for: "pg1")
        #expect(pg1["hostname"]?.value == .string("pgnode01") && pg1["patroni_tags"] == nil)
        #expect(pg1["patroni_ttl"]?.value == .int(30))
        #expect(pg1["ansible_ssh_pass"]?.value == .string("secret"))
        #expect(pg1["plain"]?.value == .string("yes # not a literal, so the comment is part of it"))
        let pg2 = inventory.variables(for: "pg2")
        #expect(pg2["tag"]?.value == .string("a") && pg2["quoted"]?.value == .string("c#d") && pg2["dropped"] == nil)
        #expect(fixture.error(loading: "hosts") == nil)
        let open = try InventoryFixture(["hosts": "[db  # no bracket\npg1\n"]).error(loading: "hosts")
        #expect(open?.message.contains("is not closed") == true && open?.location?.line == 1)
    }

    @Test("CRLF and CR line endings, and a UTF-8 byte-order mark")
    func lineEndings() throws {
        let text = "# a comment first\n[db]\npg1 port=5432\npg2\n[db:vars]\nmode='x'\n"
        for (name, bytes) in [
            ("crlf", Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)),
            ("cr", Data(text.replacingOccurrences(of: "\n", with: "\r").utf8)),
            ("bom", Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)),
        ] {
            let fixture = try InventoryFixture([:])
            try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
            try bytes.write(to: fixture.directory.appendingPathComponent(name))
            let inventory = try fixture.load(name)
            #expect(inventory.hostNames == ["pg1", "pg2"], "\(name)")
            #expect(inventory.variables(for: "pg1")["port"]?.value == .int(5432), "\(name)")
            #expect(inventory.variables(for: "pg2")["mode"]?.value == .string("x"), "\(name)")
        }
    }

    @Test("bytes that are not UTF-8 are refused with their file and line, in an inventory and in a variables file")
    func notUTF8() throws {
        let fixture = try InventoryFixture(["hosts": "[db]\npg1\n", "group_vars/all.yml": "a: 1\n"])
        try Data("[db]\npg1\npg2 name=l\u{00}b\n".utf8).map { $0 == 0 ? 0xE1 : $0 }.withUnsafeBufferPointer {
            try Data(buffer: $0).write(to: fixture.directory.appendingPathComponent("latin1"))
        }
        let ini = fixture.error(loading: "latin1")
        #expect(ini?.message == "byte 20 is not UTF-8 text" && ini?.location?.line == 3, "\(String(describing: ini))")
        try Data("a: 1\nname: l".utf8 + [0xE1] + Data("b\n".utf8)).write(
            to: fixture.directory.appendingPathComponent("group_vars/all.yml"))
        let yaml = fixture.error(loading: "hosts")
        #expect(
            yaml?.location?.file.hasSuffix("group_vars/all.yml") == true && yaml?.location?.line == 2,
            "\(String(describing: yaml))")
    }

    @Test("the reference's inventories of 1.9.0 and 2.1.0, hosts filled in, with every host, group and variable")
    func referenceInventories() throws {
        for release in ["1.9.0", "2.1.0"] {
            let fixture = try InventoryFixture(["inventory": try ReferenceFiles.inventoryWithHosts(release)])
            let inventory = try fixture.load("inventory")
            #expect(inventory.hostNames(in: "etcd_cluster") == ["10.128.64.140", "10.128.64.142", "10.128.64.143"])
            #expect(inventory.hostNames(in: "master") == ["10.128.64.140"], "\(release)")
            #expect(inventory.hostNames(in: "postgres_cluster").count == (release == "1.9.0" ? 4 : 5), "\(release)")
            let master = inventory.variables(for: "10.128.64.140")
            #expect(master["hostname"]?.value == .string("pgnode01"), "\(release)")
            #expect(master["postgresql_exists"]?.value == .string("false"), "\(release)")
            #expect(master["consul_node_role"]?.value == .string("server"), "\(release)")
            #expect(master["ansible_ssh_port"]?.value == .string("22"), "\(release)")
            #expect(master["patroni_tags"] == nil, "a commented-out tag: \(release)")
            if release == "2.1.0" {
                let added = inventory.variables(for: "10.128.64.145")
                #expect(added["new_node"]?.value == .string("true"))
                #expect(added["patroni_tags"]?.value == .string("datacenter=dc2"))
                #expect(added["balancer_tags"]?.value == .string("datacenter=dc2"))
                #expect(inventory.hostNames(in: "pgbackrest") == ["10.128.64.110"])
            }
        }
    }
}
