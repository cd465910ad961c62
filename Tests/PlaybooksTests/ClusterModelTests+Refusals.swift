import Foundation
import Keel
import Testing

@testable import Playbooks

extension ClusterModelTests {
    @Test("pre-flight refuses a Debian cluster outside the cluster's data directory, with its name, port and data")
    func otherDebianCluster() throws {
        let (model, directory) = try load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let master = HostContext(name: "10.213.0.11", inventory: inventory, facts: Facts())
        let preflight = Preflight(model: model, host: master.name)
        #expect(preflight.probe.contains("pg_lsclusters -h"))
        let own = "os=debian 12\ndebian_cluster=15/main 5432 online /var/lib/postgresql/15/main\n"
        #expect(try preflight.changes(from: ProbeOutput(text: own), on: master).isEmpty)
        #expect {
            try preflight.changes(
                from: ProbeOutput(text: own + "debian_cluster=15/prod 5433 online /data/pg15\n"), on: master)
        } throws: {
            "\($0)".contains(
                "another PostgreSQL cluster is set up here: 15/prod on port 5433 (online), data in /data/pg15; Keel "
                    + "would stop it: drop it (pg_dropcluster 15 prod) or move it elsewhere, or set "
                    + "postgresql_data_dir: /data/pg15 to take it over")
        }
    }
}

extension ClusterModelTests {
    @Test("pre-flight refuses a deploy for another release than Keel's Patroni runs (after or during keel upgrade)")
    func otherRelease() throws {
        let (model, directory) = try load()
        let master = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let preflight = Preflight(model: model, host: master.name)
        #expect(preflight.probe.contains("data_dir: *//p\" /etc/patroni/patroni.yml"), "\(preflight.probe)")
        let running = { (release: Int) in
            "os=debian 12\npatroni_release=\(release) /var/lib/postgresql/\(release)/main\n"
        }
        #expect(try preflight.changes(from: ProbeOutput(text: running(15)), on: master).isEmpty)
        #expect {
            try preflight.changes(from: ProbeOutput(text: running(17)), on: master)
        } throws: {
            "\($0)".contains(
                "Patroni here runs PostgreSQL 17 (data_dir /var/lib/postgresql/17/main), the inventory says 15 "
                    + "(postgresql_version): after keel upgrade, set postgresql_version: 17")
        }
    }
}

extension ClusterModelTests {
    @Test("pre-flight's clock check: the host's clock between the controller's as the probe left and as it came back")
    func clock() throws {
        let (model, directory) = try load()
        let master = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let preflight = Preflight(model: model, host: master.name)
        let now = Int(Date().timeIntervalSince1970)
        func problems(clock: Int, sent: Int) -> String? {
            do {
                _ = try preflight.changes(
                    from: ProbeOutput(text: "os=debian 12\nclock=\(clock)\nsent=\(sent)\n"), on: master)
                return nil
            } catch {
                return "\(error)"
            }
        }
        // A probe that took 20 s to come back (a loaded controller) is no skew.
        #expect(problems(clock: now - 10, sent: now - 20) == nil)
        #expect(problems(clock: now - 40, sent: now - 20)?.contains("the clock is 20 s off the controller's") == true)
        #expect(problems(clock: now + 30, sent: now)?.contains("s off the controller's") == true)
    }
}

extension ClusterModelTests {
    @Test(
        "settings that would be silently lost are errors: a group the settings ignore, an empty or stray [master], two repository hosts, a keel_ typo",
        arguments: [
            (
                hosts, "with_haproxy_load_balancing: true", "with_haproxy_load_balancing: false",
                "[balancers] lists 10.213.0.14, 10.213.0.15, but with_haproxy_load_balancing is false"
            ),
            (
                hosts.replacingOccurrences(of: "[master]\n", with: "[pgbackrest]\n10.213.0.16\n\n[master]\n"),
                "synchronous_node_count", "synchronous_node_count",
                "[pgbackrest] lists 10.213.0.16, but pgbackrest_install is false"
            ),
            (
                hosts.replacingOccurrences(
                    of: "[master]\n10.213.0.11 hostname=pgnode01 postgresql_exists=false\n",
                    with: "[master]\n\n[other]\n10.213.0.11\n"), "synchronous_node_count", "synchronous_node_count",
                "[master] lists no host"
            ),
            (
                hosts.replacingOccurrences(
                    of: "[master]\n10.213.0.11 hostname=pgnode01 postgresql_exists=false\n",
                    with: "[master]\n10.213.0.99\n\n[other]\n10.213.0.11\n"
                ).replacingOccurrences(
                    of: "[postgres_cluster:children]\nmaster\nreplica",
                    with: "[postgres_cluster:children]\nreplica\nother"),
                "synchronous_node_count", "synchronous_node_count",
                "the [master] host 10.213.0.99 is not in [postgres_cluster]"
            ),
            (
                hosts.replacingOccurrences(
                    of: "[master]\n", with: "[pgbackrest]\n10.213.0.16\n10.213.0.17\n\n[master]\n"),
                "synchronous_node_count: 1", "synchronous_node_count: 1\npgbackrest_install: true",
                "[pgbackrest] lists 2 hosts; the repository is one host"
            ),
            (
                hosts, "synchronous_node_count: 1", "synchronous_node_count: 1\nkeel_upgrade_patrnoi: true",
                "unknown variable 'keel_upgrade_patrnoi'"
            ),
        ])
    func silentlyLost(hosts: String, old: String, new: String, message: String) {
        let error = error(hosts: hosts, vars: Self.vars.replacingOccurrences(of: old, with: new))
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        if message.hasPrefix("unknown") {
            #expect(error?.hint?.hasPrefix("did you mean \'keel_upgrade_patroni\'?") == true)
        }
    }

    @Test(
        "the bad-input review's injection cases are refused with the file and line, before any host is touched",
        arguments: [
            (
                "patroni_cluster_name: \"lab$(touch /tmp/x)\"",
                "patroni_cluster_name 'lab$(touch /tmp/x)' cannot be used"
            ),
            ("patroni_cluster_name: \"lab; touch X\"", "patroni_cluster_name 'lab; touch X' cannot be used"),
            (
                "patroni_cluster_name: \"lab\\n[Service]\\nExecStartPre=+/bin/touch X\"",
                "patroni_cluster_name 'lab\\n[Service]"
            ),
            ("patroni_cluster_name: \"\"", "patroni_cluster_name '' cannot be used"),
            ("vip_interface: \"eth0\\n  notify_master /bin/touch X\"", "vip_interface 'eth0\\n  notify_master"),
            ("patroni_version: \"4.1.5'; touch x; '\"", "patroni_version '4.1.5'; touch x; '' cannot be used"),
            ("postgresql_data_dir: \"data; rm -rf /\"", "postgresql_data_dir 'data; rm -rf /' cannot be used"),
            ("postgresql_data_dir: \"/var/lib/../../etc\"", "postgresql_data_dir '/var/lib/../../etc' cannot be used"),
            // The flows delete it whole: not a system folder, nor one a level deep.
            (
                "postgresql_data_dir: /etc/postgresql",
                "postgresql_data_dir '/etc/postgresql' cannot be used: Keel deletes"
            ),
            ("postgresql_data_dir: /var/lib", "postgresql_data_dir '/var/lib' cannot be used: Keel deletes"),
            ("postgresql_data_dir: /pgdata", "postgresql_data_dir '/pgdata' cannot be used: Keel deletes"),
            (
                "patroni_superuser_password: \"pw\\nLD_PRELOAD=/tmp/x.so\"",
                "patroni_superuser_password cannot be used: a password has printable ASCII characters only"
            ),
            (
                "patroni_replication_password: \"pässwörd\"",
                "patroni_replication_password cannot be used: a password has printable ASCII characters only"
            ),
            (
                "pgbackrest_install: true\npgbackrest_stanza: \"lab$(id)\"",
                "pgbackrest_stanza 'lab$(id)' cannot be used"
            ),
            (
                "pgbackrest_install: true\npgbackrest_repo_path: \"/srv/b;id\"",
                "pgbackrest_repo_path '/srv/b;id' cannot be used"
            ),
            (
                "postgresql_pg_hba:\n  - { type: \"host\", database: \"all\", user: \"all\", address: \"0/0 trust\", method: \"md5\" }",
                "postgresql_pg_hba address '0/0 trust' cannot be used"
            ),
        ])
    func injection(_ variables: String, _ message: String) {
        // A variable the test model sets is replaced, not set twice.
        let names = Set(variables.split(separator: "\n").compactMap { $0.split(separator: ":").first.map(String.init) })
        let kept = Self.vars.split(separator: "\n").filter { line in
            !names.contains(line.split(separator: ":").first.map(String.init) ?? "")
        }
        let error = self.error(vars: kept.joined(separator: "\n") + "\n" + variables + "\n")
        #expect(error?.message.contains(message) == true, "\(String(describing: error?.message))")
        #expect(error?.location?.file.hasSuffix("group_vars/all.yml") == true && (error?.location?.line ?? 0) >= 18)
    }

    @Test("a database or user name holding a newline is refused; quotes are fine (SQL quotes them)")
    func sqlNames() throws {
        let newline = error(
            vars: Self.vars.replacingOccurrences(
                of: #"{ db: "app", owner: "app" }"#, with: #"{ db: "app\nKEEL_SQL\nid", owner: "app" }"#))
        #expect(
            newline?.message.hasPrefix("postgresql_databases db 'app\\nKEEL_SQL\\nid' cannot be used") == true,
            "\(String(describing: newline))")
        let (quoted, _) = try load(
            vars: Self.vars.replacingOccurrences(
                of: #"{ db: "app", owner: "app" }"#, with: #"{ db: "o'hara \"db\"", owner: "app" }"#))
        #expect(quoted.databases.first?.name == #"o'hara "db""#)
        let reversed = error(
            vars: Self.vars.replacingOccurrences(
                of: #"{ db: "app", owner: "app" }"#, with: #"{ db: "app\u202Eevil", owner: "app" }"#))
        #expect(
            reversed?.message.hasPrefix(#"postgresql_databases db 'app\u{202E}evil' cannot be used"#) == true,
            "a right-to-left override is a format character: \(String(describing: reversed))")
        let (accented, _) = try load(
            vars: Self.vars.replacingOccurrences(
                of: #"{ db: "app", owner: "app" }"#, with: #"{ db: "café", owner: "app" }"#))
        #expect(accented.databases.first?.name == "café")
    }
}
