import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("postgresql_cluster's variables: each honoured, done Keel's way, not applicable, or not supported yet")
struct ReferenceVariableTests {
    @Test(
        "every variable of every release's inventory and variables files is known, and the catalog holds no other")
    func everyVariableClassified() throws {
        var seen = Set<String>()
        for (release, file, variables) in try ReferenceCatalogueTests.files() {
            for name in variables.keys.sorted() {
                seen.insert(name)
                #expect(
                    ClusterVariable.isKnown(name) || ReferenceVariable.treatment(of: name) != nil,
                    "\(release) \(file): \(name) is not classified")
            }
        }
        let stale = Set(ReferenceVariable.names).subtracting(seen).subtracting(ReferenceVariable.newestPlaybooks.keys)
        #expect(stale.isEmpty, "catalog names in no release nor in the newest playbooks: \(stale.sorted())")
        #expect(seen.count >= 600, "\(seen.count) variables read")
    }

    @Test("a variable not supported yet is accepted at postgresql_cluster's value of any release")
    func publishedValuesAccepted() throws {
        for (release, file, variables) in try ReferenceCatalogueTests.files() {
            for (name, variable) in variables {
                guard case .notSupportedYet = ReferenceVariable.treatment(of: name) else { continue }
                #expect(
                    ReferenceVariable.isPublished(variable.value, for: name),
                    "\(release) \(file): \(name) = \(variable.value)")
            }
        }
    }

    @Test("in an inventory: done Keel's way and not applicable pass at any value; not supported yet only unchanged")
    func inInventory() throws {
        let model = ClusterModelTests()
        let accepted =
            ClusterModelTests.vars + """

                consul_ui: true
                patroni_log_dir: /srv/log/patroni
                postgresql_locale: "en_US.UTF-8"
                dcs_type: "etcd"
                """
        #expect(throws: Never.self) { try model.load(vars: accepted) }
        let changed = model.error(vars: ClusterModelTests.vars + "\npostgresql_locale: \"C\"\n")
        #expect(
            changed?.message
                == "postgresql_locale is set to 'C': Keel does not support this postgresql_cluster setting yet",
            "\(String(describing: changed))")
        #expect(changed?.hint?.hasPrefix("Keel initialises PostgreSQL with UTF8") == true)
        #expect(changed?.location?.file.hasSuffix("group_vars/all.yml") == true && (changed?.location?.line ?? 0) > 1)
        let secret = model.error(vars: ClusterModelTests.vars + "\npatroni_etcd_password: \"hunter2\"\n")
        #expect(secret?.message.contains("'***'") == true, "a secret is not shown: \(String(describing: secret))")
        let typo = model.error(vars: ClusterModelTests.vars + "\npostgresql_localle: \"C\"\n")
        #expect(typo?.hint?.hasPrefix("did you mean \'postgresql_locale\'?") == true, "\(String(describing: typo))")
    }
}

extension ReferenceVariableTests {
    @Test(
        "Jinja in the variables Keel honours is evaluated against the host's variables; a fact not gathered is refused")
    func jinja() throws {
        let model = ClusterModelTests()
        let vars =
            ClusterModelTests.vars.replacingOccurrences(
                of: #"{ option: "work_mem", value: "16MB" }"#,
                with: #"{ option: "log_directory", value: "{{ postgresql_log_dir }}" }"#)
                + """

                postgresql_log_dir: "/var/log/postgresql"
                keepalived_virtual_router_id: "{{ cluster_vip.split('.')[3] | int }}"
                pgbackrest_install: true
                pgbackrest_stanza: "{{ patroni_cluster_name }}"
                postgresql_data_dir: "/var/lib/postgresql/{{ postgresql_version }}/{{ postgresql_cluster_name | default('main') }}"
                """
        let (cluster, _) = try model.load(hosts: ClusterModelTests.hostsWithRepository, vars: vars)
        #expect(cluster.vip?.routerID == 100)
        #expect(cluster.backups?.stanza == "pg-lab")
        #expect(cluster.dataDirectory == "/var/lib/postgresql/15/main")
        #expect(
            cluster.parameters.contains { $0.option == "log_directory" && $0.value == .string("/var/log/postgresql") })

        let fact = model.error(
            vars: ClusterModelTests.vars + "\nvip_interface: \"{{ ansible_default_ipv4.interface }}\"\n")
        #expect(
            fact?.message.contains(
                "vip_interface for host 10.213.0.11 cannot be evaluated: 'ansible_default_ipv4' is undefined"
            )
                == true, "\(String(describing: fact))")
        #expect(fact?.location?.file.hasSuffix("group_vars/all.yml") == true)
        let loop = model.error(
            vars: ClusterModelTests.vars
                + "\npgbackrest_install: true\npgbackrest_stanza: \"{{ pgbackrest_stanza }}\"\n")
        #expect(loop?.message.contains("'pgbackrest_stanza' refers to itself") == true, "\(String(describing: loop))")
    }
}

extension ReferenceVariableTests {
    @Test("--explain says what Keel makes of each variable")
    func explanations() {
        #expect(ReferenceVariable.explanation(of: "patroni_cluster_name", value: .string("x")) == "a Keel setting")
        #expect(ReferenceVariable.explanation(of: "consul_ui", value: .bool(true)).hasPrefix("not applicable: Consul"))
        #expect(
            ReferenceVariable.explanation(of: "patroni_log_dir", value: .string("/x")).hasPrefix("done Keel's way"))
        #expect(
            ReferenceVariable.explanation(of: "postgresql_locale", value: .string("en_US.UTF-8"))
                .hasPrefix("postgresql_cluster's value, kept"))
        #expect(
            ReferenceVariable.explanation(of: "postgresql_locale", value: .string("C"))
                .hasPrefix("REFUSED, not supported yet"))
        #expect(
            ReferenceVariable.explanation(of: "postgresql_localle", value: .string("C"))
                == "UNKNOWN (did you mean postgresql_locale?)")
        #expect(
            ReferenceVariable.explanation(of: "node_exporter_version", value: .string("1.8.2"))
                == "ignored: Keel does not use it (another tool's variable?)")
    }

    @Test("the backup and restore playbooks of 2026-05 … 2026-09 are known: their targets are keel restore's options")
    func newestPlaybooks() {
        #expect(
            ReferenceVariable.explanation(of: "restore_target_time", value: .string("2026-09-01 12:00:00+00"))
                .hasPrefix("done Keel's way: keel restore takes its target on the command line"))
        #expect(
            ReferenceVariable.explanation(of: "pgbackrest_restore_immediate", value: .bool(true))
                .hasPrefix("done Keel's way"))
        #expect(
            ReferenceVariable.explanation(of: "backup_list_format", value: .string("json"))
                .hasPrefix("not applicable: backing up now"))
    }
}

extension ReferenceVariableTests {
    @Test("Debian's layout, which vars/main.yml refers to, is vars/Debian.yml's own values")
    func debianLayout() throws {
        for (name, variable) in ReferenceVariable.debianLayout {
            #expect(ReferenceVariable.isPublished(variable.value, for: name), "\(name)")
        }
        let (cluster, _) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars.replacingOccurrences(
                of: #"{ option: "work_mem", value: "16MB" }"#,
                with: #"{ option: "log_directory", value: "{{ postgresql_log_dir }}" }"#))
        #expect(
            cluster.parameters.contains { $0.option == "log_directory" && $0.value == .string("/var/log/postgresql") })
    }
}

extension ReferenceVariableTests {
    @Test(
        "with pgBackRest, archiving is pgBackRest's: the reference's placeholder archive_command is replaced, another refused"
    )
    func archiveCommand() throws {
        let model = ClusterModelTests()
        func vars(_ command: String) -> String {
            ClusterModelTests.vars.replacingOccurrences(
                of: #"{ option: "work_mem", value: "16MB" }"#,
                with: #"{ option: "archive_command", value: "\#(command)" }"#) + "\npgbackrest_install: true\n"
        }
        let (cluster, _) = try model.load(hosts: ClusterModelTests.hostsWithRepository, vars: vars("cd ."))
        let archiving = cluster.clusterParameters.filter { $0.option == "archive_command" }
        #expect(
            archiving == [
                .init(option: "archive_command", value: .string("pgbackrest --stanza=pg-lab archive-push %p"))
            ])
        let own = model.error(hosts: ClusterModelTests.hostsWithRepository, vars: vars("/bin/true"))
        #expect(own?.message.contains("which is pgBackRest's") == true, "\(String(describing: own))")
    }
}

extension ReferenceVariableTests {
    @Test(
        "with Keel's certificates, the server's TLS files are Keel's: autobase 2026-03's parameters naming tls_dir are left out"
    )
    func tlsFiles() throws {
        let files = ["ssl", "ssl_cert_file", "ssl_key_file", "ssl_ca_file"]
        let vars = ClusterModelTests.vars.replacingOccurrences(
            of: #"{ option: "work_mem", value: "16MB" }"#,
            with: files.map { #"{ option: "\#($0)", value: "/etc/tls/x" }"# }.joined(separator: "\n  - ")
                + "\n  - " + #"{ option: "ssl_min_protocol_version", value: "TLSv1.2" }"#)
        let (cluster, _) = try ClusterModelTests().load(vars: vars)
        #expect(cluster.tls != nil)
        let options = cluster.clusterParameters.map(\.option)
        #expect(
            files.allSatisfy { !options.contains($0) } && options.contains("ssl_min_protocol_version"), "\(options)")
        let (own, _) = try ClusterModelTests().load(vars: vars + "\ntls_cert_generate: false\n")
        #expect(files.allSatisfy { own.clusterParameters.map(\.option).contains($0) }, "without Keel's certificates")
    }
}

extension ReferenceVariableTests {
    /// Every variable Keel does not support yet, by name.
    static let notSupportedYet = ReferenceVariable.names.filter {
        if case .notSupportedYet = ReferenceVariable.treatment(of: $0) { true } else { false }
    }.sorted()

    @Test(
        "each variable not supported yet, set to a value of one's own, is refused with its name, value, line and what Keel does instead",
        arguments: notSupportedYet)
    func refusedWithItsMessage(name: String) throws {
        guard case .notSupportedYet(let instead) = ReferenceVariable.treatment(of: name) else {
            Issue.record("\(name) is not a variable Keel does not support yet")
            return
        }
        let vars = ClusterModelTests.vars + "\n\(name): \"changed by the user\"\n"
        let error = ClusterModelTests().error(vars: vars)
        let shown = Variable.isSecret(name: name) ? "***" : "changed by the user"
        #expect(
            error?.message == "\(name) is set to '\(shown)': Keel does not support this postgresql_cluster setting yet",
            "\(String(describing: error))")
        #expect(error?.hint == "\(instead); remove it, or keep postgresql_cluster's value")
        #expect(error?.location?.file.hasSuffix("group_vars/all.yml") == true)
        #expect(error?.location?.line == vars.split(separator: "\n", omittingEmptySubsequences: false).count - 1)
    }

    @Test(
        "a value is judged by what it comes to: the reference's value written without its Jinja, or with Jinja of one's own that comes to it, is accepted; another meaning is refused"
    )
    func judgedByMeaning() throws {
        // 2.5.2 publishes pgbouncer_client_tls_cert_file: "{{ tls_cert }}" with tls_cert: "server.crt".
        for kept in [#""server.crt""#, #""{{ 'server' }}.crt""#] {
            let vars = ClusterModelTests.vars + "\npgbouncer_client_tls_cert_file: \(kept)\n"
            #expect(ClusterModelTests().error(vars: vars) == nil, "\(kept)")
        }
        let own = ClusterModelTests.vars + "\npgbouncer_client_tls_cert_file: \"{{ 'mine' }}.crt\"\n"
        #expect(
            ClusterModelTests().error(vars: own)?.message
                == "pgbouncer_client_tls_cert_file is set to '{{ 'mine' }}.crt': Keel does not support this "
                + "postgresql_cluster setting yet")
        let written = InventoryValue.string("{{ 'server' }}.crt")
        let reader = VariableReader(
            host: "h1",
            variables: [
                "pgbouncer_client_tls_cert_file": Variable(written, at: SourceLocation(file: "all.yml", line: 1))
            ])
        #expect(
            ReferenceVariable.explanation(of: "pgbouncer_client_tls_cert_file", value: written, evaluatedBy: reader)
                .hasPrefix("postgresql_cluster's value, kept"))
    }

    @Test("the list above is postgresql_cluster's settings that Keel does not support yet, not an empty one")
    func notSupportedYetCount() {
        #expect(Self.notSupportedYet.count >= 100, "\(Self.notSupportedYet.count)")
    }
}
