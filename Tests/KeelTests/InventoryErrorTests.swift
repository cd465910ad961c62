import Foundation
import Keel
import Testing

@Suite("Bad inventory input names the file, the line and what to do")
struct InventoryErrorTests {
    @Test("INI: a child group that is not defined")
    func unknownChildINI() throws {
        let fixture = try InventoryFixture([
            "hosts.ini": "[master]\n10.0.0.1\n[replica]\n10.0.0.2\n[postgres_cluster:children]\nmaster\nreplcia\n"
        ])
        let error = try #require(fixture.error(loading: "hosts.ini"))
        #expect(error.location == SourceLocation(file: fixture.path("hosts.ini"), line: 7))
        #expect(error.message == "group 'replcia' is listed as a child of 'postgres_cluster' but is not defined")
        #expect(error.hint?.contains("typo") == true)
    }

    @Test("YAML: a child group that is not defined")
    func unknownChildYAML() throws {
        let fixture = try InventoryFixture([
            "inventory.yml":
                "all:\n  children:\n    master:\n      hosts:\n        pg1:\n    postgres_cluster:\n      children:\n        master:\n        replcia:\n"
        ])
        let error = try #require(fixture.error(loading: "inventory.yml"))
        #expect(error.location?.line == 9)
        #expect(error.message.contains("'replcia'"))
    }

    @Test("a host defined twice with conflicting variables")
    func conflictingHost() throws {
        let fixture = try InventoryFixture([
            "hosts.ini": "[master]\n10.0.0.1 hostname=pg1\n\n[etcd_cluster]\n10.0.0.1 hostname=pg9\n"
        ])
        let error = try #require(fixture.error(loading: "hosts.ini"))
        #expect(error.location?.line == 5)
        #expect(error.message.contains("host 10.0.0.1 is defined twice with different values for hostname"))
        #expect(error.message.contains("hosts.ini:2"))
    }

    @Test("a YAML alias bomb and a huge host range are refused within a second, naming the file and line")
    func boundedInput() throws {
        var bomb = "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...9 {
            let previous = Character(UnicodeScalar(UInt8(96 + level)))
            let name = Character(UnicodeScalar(UInt8(97 + level)))
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }
        let start = ContinuousClock.now
        let fixture = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n", "group_vars/all.yml": bomb])
        let error = try #require(fixture.error(loading: "hosts.ini"))
        #expect(error.message.contains("stands for more values than its size allows"), "\(error.message)")
        #expect(error.location?.file.hasSuffix("group_vars/all.yml") == true)
        // The line of the alias that crosses the bound: the fifth level, each nine times the one before.
        #expect(error.location?.line == 5)

        let range = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n[replica]\nx[1:100000000]\n"])
        let rangeError = try #require(range.error(loading: "hosts.ini"))
        #expect(rangeError.message.contains("host range 'x[1:100000000]' stands for more than 10000 hosts"))
        #expect(rangeError.location?.line == 4)
        let overflow = try InventoryFixture(["hosts.ini": "[master]\nx[-9223372036854775807:9223372036854775807]\n"])
        #expect(overflow.error(loading: "hosts.ini")?.message.contains("stands for more than") == true)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("weak messages made clear: a setting on a host line, an empty pattern term, binary YAML, a huge number")
    func clearMessages() throws {
        let bare = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n[replica]\nansible_port=3\n"])
        let bareError = try #require(bare.error(loading: "hosts.ini"))
        #expect(bareError.message.contains("'ansible_port=3' under [replica] is a setting, not a host"))
        #expect(bareError.location?.line == 4)

        let inventory = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n"]).load("hosts.ini")
        #expect {
            try inventory.select("master:&")
        } throws: {
            "\($0)".contains("the host pattern 'master:&' has an empty term")
        }

        let binary = try InventoryFixture([
            "hosts.ini": "[master]\n10.0.0.1\n", "group_vars/all.yml": "a: \u{01}\u{02}\u{7f}binary\n",
        ])
        let binaryError = try #require(binary.error(loading: "hosts.ini"))
        #expect(
            binaryError.description.contains("all.yml:")
                && binaryError.message.contains("cannot read this as YAML text"))
        #expect(!binaryError.description.contains("binary"), "\(binaryError.description)")

        let huge = try InventoryFixture([
            "hosts.ini": "[master]\n10.0.0.1\n", "group_vars/all.yml": "postgresql_port: 99999999999999999999\n",
        ]).load("hosts.ini")
        let reader = VariableReader(host: "10.0.0.1", variables: huge.variables(for: "10.0.0.1"))
        #expect {
            try reader.int(["postgresql_port"], in: 1...65535)
        } throws: {
            "\($0)".contains("postgresql_port for host 10.0.0.1 is 99999999999999999999, outside 1…65535")
        }
        #expect(InventoryError("no place").description == "no place")
    }

    @Test("a group_vars that is not a readable folder, or an empty variables file, stops the load")
    func unreadableGroupVars() throws {
        let fixture = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n", "group_vars": "patroni_ttl: 30\n"])
        let error = try #require(fixture.error(loading: "hosts.ini"))
        #expect(error.message.contains("cannot read the variables folder") && error.message.hasSuffix("/group_vars"))
        let empty = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n", "group_vars/all.yml": "# nothing\n"])
        #expect(empty.error(loading: "hosts.ini")?.message.hasSuffix("all.yml holds no variables") == true)
        let folder = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n", "group_vars/all.yml/x.yml": "a: 1\n"])
        #expect(
            folder.error(loading: "hosts.ini")?.message.hasSuffix("all.yml is a folder, not a variables file") == true)
        let looped = try InventoryFixture(["hosts.ini": "[master]\n10.0.0.1\n", "group_vars/master.yml": "a: 1\n"])
        let directory = (try looped.load("hosts.ini").path as NSString).deletingLastPathComponent + "/group_vars"
        try FileManager.default.createSymbolicLink(atPath: directory + "/all.yml", withDestinationPath: "all.yml")
        #expect(looped.error(loading: "hosts.ini")?.message.contains("all.yml (a broken link?)") == true)
    }

    @Test("a host's two different passwords are not shown in the error")
    func conflictingSecret() throws {
        let fixture = try InventoryFixture([
            "hosts.ini":
                "[master]\n10.0.0.1 ansible_password=First-1\n\n[etcd_cluster]\n10.0.0.1 ansible_password=Second-2\n"
        ])
        let error = try #require(fixture.error(loading: "hosts.ini"))
        #expect(error.message.contains("different values for ansible_password: *** at "), "\(error.message)")
        #expect(!error.message.contains("First-1") && !error.message.contains("Second-2"))
    }

    @Test("the same host in two groups with the same variables is fine")
    func repeatedHost() throws {
        let fixture = try InventoryFixture([
            "hosts.ini": "[master]\n10.0.0.1 hostname=pg1\n[etcd_cluster]\n10.0.0.1 hostname=pg1\n"
        ])
        #expect(try fixture.load("hosts.ini").hostNames == ["10.0.0.1"])
    }

    @Test("wrong types: hosts written as a list, a port that is not a number")
    func wrongTypes() throws {
        let fixture = try InventoryFixture([
            "list.yml": "all:\n  children:\n    db:\n      hosts:\n        - pg1\n        - pg2\n",
            "port.yml": "all:\n  hosts:\n    pg1:\n      ansible_host: 10.0.0.1\n      ansible_port: twenty-two\n",
        ])
        let listError = try #require(fixture.error(loading: "list.yml"))
        #expect(listError.location?.line == 5)
        #expect(listError.message == "hosts of group 'db' must be a mapping of host names, not a list")

        let inventory = try fixture.load("port.yml")
        #expect(throws: InventoryError.self) { try inventory.target(for: "pg1") }
        do {
            _ = try inventory.target(for: "pg1")
        } catch {
            #expect(error.location?.line == 5)
            #expect(error.message == "ansible_port for host pg1 must be an integer, not a string 'twenty-two'")
        }
    }

    @Test("bad YAML and bad INI syntax")
    func badSyntax() throws {
        let fixture = try InventoryFixture([
            "broken.yml": "all:\n  hosts:\n    pg1: {ansible_host: 10.0.0.1\n    pg2:\n",
            "tab.yml": "all:\n\thosts:\n",
            "broken.ini": "[db\npg1\n",
            "vars.ini": "[db]\npg1\n[db:vars]\nthis line has no equals sign\n",
            "quote.ini": "[db]\npg1 hostname='pg1\n",
            "colon.ini": "[db]\npg1\n[:]\n",
            "novars.ini": "[db]\npg1\n[:vars]\nx=1\n",
        ])
        let yaml = try #require(fixture.error(loading: "broken.yml"))
        #expect(yaml.location?.file == fixture.path("broken.yml"))
        #expect((yaml.location?.line ?? 0) >= 3)
        #expect(yaml.message.hasPrefix("invalid YAML"))
        #expect(try #require(fixture.error(loading: "tab.yml")).location?.line == 2)
        let header = try #require(fixture.error(loading: "broken.ini"))
        #expect(header.location?.line == 1 && header.message.contains("not closed"))
        let vars = try #require(fixture.error(loading: "vars.ini"))
        #expect(vars.location?.line == 4 && vars.message.contains("expected NAME=VALUE"))
        #expect(try #require(fixture.error(loading: "quote.ini")).location?.line == 2)
        // Headers without a group name are refused, not a crash or a group named 'vars'.
        for name in ["colon.ini", "novars.ini"] {
            let error = try #require(fixture.error(loading: name))
            #expect(error.location?.line == 3 && error.message == "'' is not a valid group name", "\(error)")
        }
    }

    @Test("groups that contain each other")
    func cycle() throws {
        let fixture = try InventoryFixture(["hosts.ini": "[a]\nh1\n[b]\nh2\n[a:children]\nb\n[b:children]\na\n"])
        #expect(try #require(fixture.error(loading: "hosts.ini")).message.contains("groups contain each other"))
    }

    @Test("a missing inventory file says which path")
    func missingFile() {
        do {
            _ = try Inventory.load(path: "/nonexistent/hosts.ini")
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "cannot read inventory file /nonexistent/hosts.ini")
        }
    }
}
