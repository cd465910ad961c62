import Foundation
import Keel
import Testing

@Suite("Inventories in YAML and postgresql_cluster-style INI")
struct InventoryTests {
    static let ini = """
        # postgresql_cluster style
        [etcd_cluster]
        10.213.0.11
        10.213.0.12
        10.213.0.13

        [balancers]
        10.213.0.14 keepalived_priority=110
        10.213.0.15

        [master]
        10.213.0.11 hostname=pgnode01 postgresql_exists=false

        [replica]
        10.213.0.12 hostname=pgnode02 postgresql_exists=false
        10.213.0.13 hostname=pgnode03 postgresql_exists=false patroni_tags="nosync=true,datacenter=dc1"

        [postgres_cluster:children]
        master
        replica

        [all:vars]
        ansible_connection=ssh
        ansible_ssh_port=22
        ansible_user='deploy'
        ansible_ssh_private_key_file=~/.ssh/id_ed25519
        patroni_superuser_password='s3cr3t'
        """

    static let yaml = """
        all:
          vars:
            ansible_connection: ssh
            ansible_ssh_port: 22
            ansible_user: deploy
            ansible_ssh_private_key_file: ~/.ssh/id_ed25519
            patroni_superuser_password: s3cr3t
          children:
            etcd_cluster:
              hosts:
                10.213.0.11:
                10.213.0.12:
                10.213.0.13:
            balancers:
              hosts:
                10.213.0.14:
                  keepalived_priority: 110
                10.213.0.15:
            master:
              hosts:
                10.213.0.11:
                  hostname: pgnode01
                  postgresql_exists: false
            replica:
              hosts:
                10.213.0.12:
                  hostname: pgnode02
                  postgresql_exists: false
                10.213.0.13:
                  hostname: pgnode03
                  postgresql_exists: false
                  patroni_tags: "nosync=true,datacenter=dc1"
            postgres_cluster:
              children:
                master:
                replica:
        """

    @Test("the same cluster in YAML and in INI resolves to the same hosts, groups and variables")
    func yamlAndINIAgree() throws {
        let fixture = try InventoryFixture(["cluster.yml": Self.yaml, "cluster.ini": Self.ini])
        let fromYAML = try fixture.load("cluster.yml")
        let fromINI = try fixture.load("cluster.ini")
        #expect(fromYAML.hostNames.sorted() == fromINI.hostNames.sorted())
        #expect(fromYAML.hostNames.count == 5)
        #expect(fromYAML.groupNames.sorted() == fromINI.groupNames.sorted())
        for group in fromYAML.groupNames {
            #expect(fromYAML.hostNames(in: group).sorted() == fromINI.hostNames(in: group).sorted(), "group \(group)")
        }
        #expect(fromINI.hostNames(in: "postgres_cluster") == ["10.213.0.11", "10.213.0.12", "10.213.0.13"])
        for host in fromYAML.hostNames {
            #expect(fromYAML.groups(of: host) == fromINI.groups(of: host), "groups of \(host)")
            // INI reads `false` as the string "false", as Ansible does; the typed model reads both as booleans.
            let yamlValues = fromYAML.variables(for: host).mapValues { Self.ansibleBool($0.value) }
            let iniValues = fromINI.variables(for: host).mapValues { Self.ansibleBool($0.value) }
            #expect(yamlValues == iniValues, "variables of \(host)")
        }
        #expect(fromINI.variables(for: "10.213.0.13")["patroni_tags"]?.value == .string("nosync=true,datacenter=dc1"))
        #expect(fromINI.variables(for: "10.213.0.14")["keepalived_priority"]?.value == .int(110))
    }

    private static func ansibleBool(_ value: InventoryValue) -> InventoryValue {
        switch value {
        case .string("false"): .bool(false)
        case .string("true"): .bool(true)
        default: value
        }
    }

    @Test("connection variables under Ansible's and Keel's names")
    func connectionVariables() throws {
        let fixture = try InventoryFixture([
            "hosts.ini": """
            [db]
            pg1 ansible_host=10.213.0.11 ansible_port=2222 ansible_become=true
            pg2 keel_host=10.213.0.12 ansible_host=10.0.0.99 keel_user=admin ansible_become=yes ansible_become_user=postgres
            [all:vars]
            ansible_user=deploy
            ansible_ssh_private_key_file=/keys/id_ed25519
            """
        ])
        let inventory = try fixture.load("hosts.ini")
        let first = try inventory.target(for: "pg1")
        #expect(first.address == "10.213.0.11" && first.port == 2222 && first.user == "deploy")
        #expect(first.privateKeyFile == "/keys/id_ed25519")
        #expect(first.become?.user == "root")
        let second = try inventory.target(for: "pg2")
        #expect(second.address == "10.213.0.12" && second.port == 22 && second.user == "admin")
        #expect(second.become?.user == "postgres")
    }

    @Test("relative key and known_hosts paths are the inventory folder's, wherever keel runs")
    func relativePaths() throws {
        let fixture = try InventoryFixture([
            "hosts.ini": "[db]\npg1 ansible_ssh_private_key_file=id_ed25519 keel_known_hosts_file=known_hosts\n"
        ])
        let inventory = try fixture.load("hosts.ini")
        let folder = (inventory.path as NSString).deletingLastPathComponent
        // A file of the same name in the working directory must not win.
        let decoy = FileManager.default.currentDirectoryPath + "/known_hosts"
        let madeDecoy =
            !FileManager.default.fileExists(atPath: decoy)
            && FileManager.default.createFile(atPath: decoy, contents: Data())
        defer { if madeDecoy { try? FileManager.default.removeItem(atPath: decoy) } }
        let target = try inventory.target(for: "pg1")
        #expect(target.privateKeyFile == folder + "/id_ed25519" && target.knownHostsFile == folder + "/known_hosts")
    }

    @Test("group_vars and host_vars override the inventory in Ansible's order")
    func variablePrecedence() throws {
        let fixture = try InventoryFixture([
            "inventory.yml": """
            all:
              vars:
                level: all-inline
                only_all: 1
              children:
                postgres_cluster:
                  vars:
                    level: cluster-inline
                  children:
                    replica:
                      vars:
                        level: replica-inline
                      hosts:
                        pg2:
                          level: host-inline
                        pg3:
            """,
            "group_vars/all.yml": "only_all: 2\nfrom_files: all\n",
            "group_vars/replica/main.yml": "from_files: replica\n",
            "host_vars/pg2.yml": "from_files: host\n",
        ])
        let inventory = try fixture.load("inventory.yml")
        let pg2 = inventory.variables(for: "pg2")
        let pg3 = inventory.variables(for: "pg3")
        #expect(pg2["level"]?.value == .string("host-inline"))
        #expect(pg3["level"]?.value == .string("replica-inline"))
        #expect(pg3["only_all"]?.value == .int(2))
        #expect(pg3["from_files"]?.value == .string("replica"))
        #expect(pg2["from_files"]?.value == .string("host"))
        #expect(pg2["from_files"]?.origin.file.hasSuffix("host_vars/pg2.yml") == true)
        #expect(inventory.groups(of: "pg3") == ["all", "postgres_cluster", "replica"])
    }

    @Test("INI host ranges expand, with leading zeros kept")
    func hostRanges() throws {
        let fixture = try InventoryFixture(["hosts": "[db]\npg[1:3]\n[web]\nweb[01:02].lab\n"])
        let inventory = try fixture.load("hosts")
        #expect(inventory.hostNames == ["pg1", "pg2", "pg3", "web01.lab", "web02.lab"])
    }
}

extension InventoryTests {
    @Test("INI values read as Ansible reads them: a leading zero keeps the string, zero itself is a number")
    func leadingZeros() throws {
        let fixture = try InventoryFixture(["hosts": "[db]\npg1 password=0123 mode=0770 zero=0 port=5432 neg=-7\n"])
        let variables = try fixture.load("hosts").variables(for: "pg1")
        #expect(variables["password"]?.value == .string("0123"))
        #expect(variables["mode"]?.value == .string("0770"))
        #expect(variables["zero"]?.value == .int(0))
        #expect(variables["port"]?.value == .int(5432))
        #expect(variables["neg"]?.value == .int(-7))
    }
}

extension InventoryTests {
    @Test("secrets are shown as ***: by name, Ansible's _pass names, and entries of lists and mappings")
    func shownSecrets() {
        #expect(Variable.shown(.string("pw"), name: "ansible_ssh_pass") == .string("***"))
        #expect(Variable.shown(.string("pw"), name: "ansible_become_pass") == .string("***"))
        #expect(Variable.shown(.int(5432), name: "postgresql_port") == .int(5432))
        let users = InventoryValue.list([.map(["name": .string("app"), "password": .string("s3cret")])])
        #expect(
            Variable.shown(users, name: "postgresql_users")
                == .list([.map(["name": .string("app"), "password": .string("***")])]))
    }
}
