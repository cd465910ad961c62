import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("The cluster model from postgresql_cluster's inventory and variables")
struct ClusterModelTests {
    static let hosts = """
        [etcd_cluster]
        10.213.0.11
        10.213.0.12
        10.213.0.13

        [balancers]
        10.213.0.14
        10.213.0.15

        [master]
        10.213.0.11 hostname=pgnode01 postgresql_exists=false

        [replica]
        10.213.0.12 hostname=pgnode02
        10.213.0.13 hostname=pgnode03

        [postgres_cluster:children]
        master
        replica

        [all:vars]
        ansible_user=root
        """

    /// `hosts` with 10.213.0.16 as the pgBackRest repository host.
    static let hostsWithRepository = hosts.replacingOccurrences(
        of: "[postgres_cluster:children]", with: "[pgbackrest]\n10.213.0.16\n\n[postgres_cluster:children]")

    static let vars = """
        patroni_cluster_name: "pg-lab"
        postgresql_version: 15
        with_haproxy_load_balancing: true
        cluster_vip: "10.213.0.100"
        synchronous_node_count: 1
        postgresql_parameters:
          - { option: "max_connections", value: "200" }
          - { option: "work_mem", value: "16MB" }
        postgresql_users:
          - { name: "app", password: "", flags: "" }
        postgresql_databases:
          - { db: "app", owner: "app" }
        haproxy_listen_port:
          master: 5000
          replicas: 5001
          replicas_sync: 5002
          replicas_async: 5003
          stats: 7000
        """

    /// The model of ``hostsWithRepository`` with pgBackRest installed.
    func withRepository() throws -> ClusterModel {
        try load(hosts: Self.hostsWithRepository, vars: Self.vars + "\npgbackrest_install: true\n").0
    }

    func load(hosts: String = hosts, vars: String = vars) throws -> (ClusterModel, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("group_vars"), withIntermediateDirectories: true)
        try hosts.write(to: directory.appendingPathComponent("hosts.ini"), atomically: true, encoding: .utf8)
        try vars.write(to: directory.appendingPathComponent("group_vars/all.yml"), atomically: true, encoding: .utf8)
        let inventory = try Inventory.load(path: directory.appendingPathComponent("hosts.ini").path)
        let secrets = try ClusterSecrets(besideInventory: inventory.path)
        let model = try ClusterModel.load(from: inventory, secrets: secrets)
        try secrets.save()
        return (model, directory.path)
    }

    /// What `flow` refuses for the cluster of `hosts`, as the operator reads it; nil when it goes ahead.
    func refusal(_ flow: some ClusterFlow, hosts: String = hosts) throws -> String? {
        let (model, _) = try load(hosts: hosts)
        do {
            try flow.check(model)
            return nil
        } catch {
            return error.description
        }
    }

    /// Host `name` of the inventory in `directory` (as `load` writes it), its address on eth0.
    static func host(_ name: String, _ directory: String) throws -> HostContext {
        var facts = Facts()
        facts.interfaces = ["eth0": ["\(name)/24"]]
        return HostContext(name: name, inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts)
    }

    /// The template of `steps` written to `path`, rendered for `host`.
    static func rendered(_ steps: [Step], _ path: String, on host: HostContext) throws -> String {
        try #require(steps.compactMap { $0.resource as? Template }.first { $0.path == path }).render(for: host)
    }

    func error(hosts: String = hosts, vars: String = vars) -> InventoryError? {
        do {
            _ = try load(hosts: hosts, vars: vars)
            return nil
        } catch let error as InventoryError {
            return error
        } catch {
            return InventoryError("\(error)")
        }
    }

    @Test("groups, variables and Keel's safe defaults")
    func decodes() throws {
        let (model, _) = try load()
        #expect(model.name == "pg-lab" && model.postgresVersion == 15 && model.postgresPort == 5432)
        #expect(model.dataDirectory == "/var/lib/postgresql/15/main")
        #expect(model.etcdHosts.count == 3 && model.databaseHosts.count == 3 && model.balancerHosts.count == 2)
        #expect(model.primaryHost == "10.213.0.11")
        #expect(model.patroni.synchronousMode && !model.patroni.synchronousModeStrict)
        #expect(model.patroni.loopWait + 2 * model.patroni.retryTimeout <= model.patroni.ttl)
        #expect(model.parameters.map(\.option) == ["max_connections", "work_mem"])
        #expect(
            model.haproxy != nil && model.vip == VIP(address: "10.213.0.100", placement: .balancers, routerID: 100)
                && model.haproxy?.ports.stats == 7000)
        #expect(
            model.etcdEndpoints
                == "https://10.213.0.11:2379,https://10.213.0.12:2379,https://10.213.0.13:2379")
    }

    @Test("empty passwords are generated once, strong, stored 0600, and the same on the next run")
    func secrets() throws {
        let (first, directory) = try load()
        let path = directory + "/.keel-secrets.yml"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let password = first.logins.superuser.password.reveal()
        // 32 letters and digits (190 bits); a given class may be missing by chance (a digit, once in 280 passwords).
        #expect(password.count == 32 && password.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(password != first.logins.replication.password.reveal())
        #expect(first.users.first?.password?.reveal().count == 32)
        let again = try ClusterModel.load(
            from: Inventory.load(path: directory + "/hosts.ini"),
            secrets: ClusterSecrets(besideInventory: directory + "/hosts.ini"))
        #expect(again.logins.superuser.password.reveal() == password)
        #expect(again.logins.replication.password.reveal() == first.logins.replication.password.reveal())
        #expect(first.logins.restAPI.name == "patroni" && first.logins.restAPI.password.reveal().count == 32)
        #expect(again.logins.restAPI.password.reveal() == first.logins.restAPI.password.reveal())
        #expect("\(first.logins.superuser.password)" == "***")
        #expect(
            Set(first.generatedSecrets.filter { !$0.hasPrefix("tls_") }) == [
                "haproxy_stats_password", "patroni_replication_password", "patroni_restapi_password",
                "patroni_superuser_password", "user_app", "vrrp_auth_pass",
            ])
        #expect(first.generatedSecrets.contains("tls_ca_key") && first.generatedSecrets.contains("tls_10.213.0.12_key"))
        #expect(again.generatedSecrets.isEmpty)
    }

    @Test("an unknown variable is reported with its line and the name it probably meant")
    func unknownVariable() {
        let error = self.error(vars: Self.vars + "\nsynchronus_mode: true\n")
        #expect(error?.message == "unknown variable 'synchronus_mode'")
        #expect(error?.hint?.hasPrefix("did you mean \'synchronous_mode\'?") == true)
        #expect(error?.location?.line == 19)
        #expect(error?.location?.file.hasSuffix("group_vars/all.yml") == true)
    }

    @Test("another tool's variables are ignored, named in one warning by file and line; a near-miss is a typo")
    func ignoredVariables() throws {
        let others = (1...10).map { "other_tool_setting_\($0): \($0)" }.joined(separator: "\n")
        let vars = Self.vars + "\nnode_exporter_version: \"1.8.2\"\nmy_app_port: 8080\n" + others + "\n"
        let (model, directory) = try load(vars: vars)
        #expect(model.postgresVersion > 0, "the model loads")
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let ignored = try ClusterModel.ignoredVariables(in: inventory)
        #expect(ignored.entries.count == 12)
        let warning = try #require(ignored.warning)
        #expect(warning.hasPrefix("12 variable(s) Keel does not use, ignored"), "\(warning)")
        #expect(warning.contains("group_vars/all.yml:\n    line 19: node_exporter_version\n    line 20: my_app_port\n"))
        #expect(warning.components(separatedBy: "group_vars/all.yml:").count == 2, "each file once: \(warning)")
        let typo = error(vars: Self.vars + "\npostgresql_verison: 16\n")
        #expect(typo?.message == "unknown variable 'postgresql_verison'")
        #expect(typo?.hint?.hasPrefix("did you mean 'postgresql_version'?") == true)
    }

    @Test("a wrong type names the variable, the value and the line")
    func wrongType() {
        let error = self.error(
            vars: Self.vars.replacingOccurrences(of: "postgresql_version: 15", with: "postgresql_version: fifteen"))
        #expect(error?.message == "postgresql_version for host 10.213.0.11 must be an integer, not a string 'fifteen'")
        #expect(error?.location?.line == 2)
    }

    @Test(
        "impossible values: more sync nodes than replicas, an even or single etcd, a bad VIP, an unsafe Patroni, ttl too short"
    )
    func impossibleValues() {
        let sync = error(
            vars: Self.vars.replacingOccurrences(of: "synchronous_node_count: 1", with: "synchronous_node_count: 3"))
        #expect(sync?.message == "synchronous_node_count is 3 but the cluster has 2 replica(s)")
        #expect(sync?.location?.line == 5)

        let twoEtcd = Self.hosts.replacingOccurrences(of: "10.213.0.13\n\n[balancers]", with: "\n[balancers]")
        let even = error(hosts: twoEtcd)
        #expect(even?.message.hasPrefix("[etcd_cluster] has 2 member(s)") == true)
        #expect(even?.location?.line == 1)
        #expect(error(hosts: twoEtcd, vars: Self.vars + "\netcd_allow_even_members: true\n") == nil)

        let vip = error(vars: Self.vars.replacingOccurrences(of: "10.213.0.100", with: "10.213.0"))
        #expect(vip?.message == "cluster_vip '10.213.0' is not an IPv4 address")

        let patroni = error(vars: Self.vars + "\npatroni_version: \"3.0.2\"\n")
        #expect(patroni?.message == "patroni_version 3.0.2 is older than 4.0.6")
        #expect(patroni?.location?.line == 19)

        let ttl = error(vars: Self.vars + "\npatroni_ttl: 20\n")
        #expect(ttl?.message.contains("loop_wait + 2 × retry_timeout ≤ ttl") == true)
    }

    @Test(
        "pgBackRest: the [pgbackrest] host is the repository; SSH keys are made once and kept, never by a read-only load; bad repository hosts are refused"
    )
    func backups() throws {
        let (model, directory) = try load(
            hosts: Self.hostsWithRepository, vars: Self.vars + "\npgbackrest_install: true\n")
        let backups = try #require(model.backups)
        #expect(backups.repositoryHost == "10.213.0.16" && backups.stanza == "pg-lab" && backups.retentionFull == 4)
        #expect(backups.path == "/var/lib/pgbackrest" && backups.backupUser == "pgbackrest")
        #expect(model.allHosts.last == "10.213.0.16")
        #expect(backups.archiveCommand == "pgbackrest --stanza=pg-lab archive-push %p")
        guard case .host(_, let databaseKey, let repositoryKey) = backups.repository else {
            Issue.record("no repository host"); return
        }
        #expect(databaseKey.publicKey.hasPrefix("ssh-ed25519 ") && databaseKey.publicKey != repositoryKey.publicKey)
        #expect(databaseKey.privateKey.reveal().contains("BEGIN OPENSSH PRIVATE KEY"))
        let again = try ClusterModel.load(
            from: Inventory.load(path: directory + "/hosts.ini"),
            secrets: ClusterSecrets(besideInventory: directory + "/hosts.ini"))
        guard case .host(_, let databaseKeyAgain, let repositoryKeyAgain) = again.backups?.repository else {
            Issue.record("no repository host"); return
        }
        #expect(databaseKeyAgain.publicKey == databaseKey.publicKey)
        #expect(repositoryKeyAgain.privateKey.reveal() == repositoryKey.privateKey.reveal())

        // Commands that only read (keel status) make no keys and write no secrets.
        try FileManager.default.removeItem(atPath: directory + "/.keel-secrets.yml")
        let readOnly = try ClusterModel.load(
            from: Inventory.load(path: directory + "/hosts.ini"),
            secrets: ClusterSecrets(besideInventory: directory + "/hosts.ini", readOnly: true))
        guard case .host(_, let noKey, _) = readOnly.backups?.repository else {
            Issue.record("no repository host"); return
        }
        #expect(noKey.publicKey.isEmpty && readOnly.logins.superuser.password.reveal().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory + "/.keel-secrets.yml"))

        let onDatabaseHost = error(vars: Self.vars + "\npgbackrest_install: true\npgbackrest_repo_host: 10.213.0.12\n")
        #expect(onDatabaseHost?.message == "the pgBackRest repository host 10.213.0.12 is also a database host")
        let unknown = error(vars: Self.vars + "\npgbackrest_install: true\npgbackrest_repo_host: backup1\n")
        #expect(unknown?.message == "pgbackrest_repo_host 'backup1' is not a host of the inventory")
    }

    @Test(
        "pgBackRest without a repository host: a shared posix directory, backed up by postgres; other repository types and odd paths are refused"
    )
    func sharedRepository() throws {
        let (model, directory) = try load(
            vars: Self.vars + "\npgbackrest_install: true\npgbackrest_repo_path: /srv/nfs/pgbackrest\n")
        let backups = try #require(model.backups)
        #expect(
            backups.repositoryHost == nil && backups.path == "/srv/nfs/pgbackrest" && backups.backupUser == "postgres")
        #expect(model.allHosts.count == 5, "no repository host joins the cluster")
        let secrets = try String(contentsOfFile: directory + "/.keel-secrets.yml", encoding: .utf8)
        #expect(!secrets.contains("pgbackrest_ssh_key"), "no SSH keys are made for a shared repository")

        let s3 = error(vars: Self.vars + "\npgbackrest_install: true\npgbackrest_repo_type: s3\n")
        #expect(s3?.message == "pgbackrest_repo_type 's3' is not supported" && s3?.location?.line == 20)
        let relative = error(vars: Self.vars + "\npgbackrest_install: true\npgbackrest_repo_path: backups\n")
        #expect(
            relative?.message
                == "pgbackrest_repo_path 'backups' cannot be used: give an absolute path of letters, digits, _ . / + - (no spaces, quotes or ..)"
                && relative?.location?.line == 20)
    }

    @Test("the PGDG repository: official by default, or a mirror with its key file; PostgreSQL other than 15 needs it")
    func pgdgRepository() throws {
        let (debian, _) = try load()
        #expect(debian.pgdg == nil)
        let (official, _) = try load(vars: Self.vars + "\npgdg_repository: true\n")
        #expect(official.pgdg == ClusterModel.PGDGRepository(url: "https://apt.postgresql.org/pub/repos/apt", key: nil))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-pgdg-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ\n-----END PGP PUBLIC KEY BLOCK-----\n"
        try key.write(toFile: directory + "/mirror.asc", atomically: true, encoding: .utf8)
        let (mirror, _) = try load(
            vars: Self.vars.replacingOccurrences(of: "postgresql_version: 15", with: "postgresql_version: 17")
                + "\npgdg_repository: yes\npgdg_repository_url: http://mirror.example/pgdg/\npgdg_repository_key_file: \(directory)/mirror.asc\n"
        )
        #expect(
            mirror.postgresVersion == 17
                && mirror.pgdg == ClusterModel.PGDGRepository(url: "http://mirror.example/pgdg", key: key))

        let debian17 = error(
            vars: Self.vars.replacingOccurrences(of: "postgresql_version: 15", with: "postgresql_version: 17"))
        #expect(
            debian17?.message == "postgresql_version is 17, but Debian 12 packages PostgreSQL 15 only"
                && debian17?.location?.line == 2)
        let notAKey = error(
            vars: Self.vars + "\npgdg_repository: true\npgdg_repository_key_file: \(directory)/missing.asc\n")
        #expect(
            notAKey?.message
                == "pgdg_repository_key_file \(directory)/missing.asc is not a readable ASCII-armored public key"
                && notAKey?.location?.line == 20)
        let ftp = error(vars: Self.vars + "\npgdg_repository: true\npgdg_repository_url: ftp://mirror.example/pgdg\n")
        #expect(ftp?.message == "pgdg_repository_url 'ftp://mirror.example/pgdg' is not an http(s) URL")
    }

    @Test("a shared repository is refused on a member that does not see every member's mark, naming the missing ones")
    func sharedRepositoryCheck() throws {
        let check = SharedRepositoryCheck(path: "/var/lib/pgbackrest", host: "h2", members: ["h1", "h2", "h3"])
        let (_, directory) = try load()
        let context = HostContext(
            name: "h2", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        #expect(try check.changes(from: ProbeOutput(text: "h1\nh2\nh3"), on: context).isEmpty)
        #expect(throws: ResourceError.self) { try check.changes(from: ProbeOutput(text: "h2"), on: context) }
        do {
            _ = try check.changes(from: ProbeOutput(text: "h2"), on: context)
        } catch {
            #expect(
                "\(error)".contains(
                    "/var/lib/pgbackrest on h2 is not the directory the other database hosts see: the marks of h1, h3 are missing here"
                ))
        }
    }

    @Test("pgbackrest info's JSON: the stanza's status and each backup's label, type, end, size and database system")
    func backupStatus() throws {
        let json =
            #"[{"archive":[],"backup":[{"database":{"id":1,"repo-key":1},"info":{"delta":30862194,"size":30862194},"label":"20261122-020309F","timestamp":{"start":1795312989,"stop":1795312992},"type":"full"},{"database":{"id":2,"repo-key":1},"info":{"size":31000000},"label":"20261122-020309F_20261123-063000D","timestamp":{"start":1795415400,"stop":1795415410},"type":"diff"}],"db":[{"id":1,"repo-key":1,"system-id":7320000000000000001,"version":"13"},{"id":2,"repo-key":1,"system-id":18000000000000000002,"version":"15"}],"name":"lab","status":{"code":0,"message":"ok"}}]"#
        let status = try BackupStatus.parse(Data(json.utf8), repository: "h4")
        #expect(status.stanza == "lab" && status.status == "ok")
        #expect(
            status.backups.map(\.type) == ["full", "diff"] && status.backups[0].finished == 1795312992
                && status.backups[1].size == 31000000)
        #expect(status.backups.map(\.systemID) == ["7320000000000000001", "18000000000000000002"])
        #expect(
            status.summary.hasPrefix(
                "backups on h4 (stanza lab): ok, 2 backup(s); last full 20261122-020309F finished 2026-11-22T02:03:12Z")
        )
        let empty = try BackupStatus.parse(
            Data(#"[{"backup":[],"name":"lab","status":{"code":2,"message":"no valid backups"}}]"#.utf8),
            repository: "h4")
        #expect(empty.summary == "backups on h4 (stanza lab): no valid backups, 0 backup(s)")
    }
}

extension ClusterModelTests {
    @Test(
        "postgresql_users: flags become the attributes managed; Patroni's roles, unknown flags and repeats are refused")
    func userFlags() throws {
        func withUsers(_ entries: String) -> String {
            Self.vars.replacingOccurrences(of: #"  - { name: "app", password: "", flags: "" }"#, with: entries)
        }
        let (model, _) = try load(
            vars: withUsers(
                #"  - { name: "app", password: "", flags: "" }"# + "\n"
                    + #"  - { name: "cdc", password: "", flags: "LOGIN,REPLICATION" }"#))
        #expect(model.users.map(\.attributes) == [[.login: true], [.login: true, .replication: true]])
        let patroni = error(vars: withUsers(#"  - { name: "replicator", password: "x", flags: "" }"#))
        #expect(patroni?.message == "postgresql_users lists replicator, the role Patroni keeps as its replication user")
        let unknown = error(vars: withUsers(#"  - { name: "app", password: "", flags: "LOGIN,ADMIN" }"#))
        #expect(unknown?.message.contains("flags 'LOGIN,ADMIN' name something that is not a role attribute") == true)
        let twice = error(
            vars: withUsers(
                #"  - { name: "app", password: "", flags: "" }"# + "\n"
                    + #"  - { name: "app", password: "", flags: "" }"#))
        #expect(twice?.message == "postgresql_users lists app twice")
    }
}
