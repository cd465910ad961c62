import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("postgresql_cluster's host flags: the server's name, Patroni tags, the member to stream from, balancer tags")
struct HostFlagsTests {
    /// The model's hosts with the reference's flags on their lines.
    static let hosts = ClusterModelTests.hosts
        .replacingOccurrences(
            of: "10.213.0.14\n10.213.0.15\n",
            with: "10.213.0.14 balancer_tags=\"datacenter=dc1\"\n10.213.0.15\n"
        )
        .replacingOccurrences(
            of: "10.213.0.12 hostname=pgnode02",
            with: "10.213.0.12 hostname=pgnode02 patroni_tags=\"datacenter=dc1, nofailover=true,failover_priority=2\""
        )
        .replacingOccurrences(
            of: "10.213.0.13 hostname=pgnode03",
            with: "10.213.0.13 hostname=pgnode03 patroni_tags=\"datacenter=dc2\" patroni_replicatefrom=pgnode02")

    @Test("read from the hosts' lines: typed tags over Keel's defaults, the upstream by its hostname, balancer tags")
    func read() throws {
        let (model, _) = try ClusterModelTests().load(hosts: Self.hosts)
        #expect(model.hostFlags["10.213.0.11"] == HostFlags(serverName: "pgnode01"))
        #expect(
            model.patroniTags(of: "10.213.0.12") == [
                "nofailover": .bool(true), "noloadbalance": .bool(false), "clonefrom": .bool(false),
                "nosync": .bool(false), "datacenter": .string("dc1"), "failover_priority": .integer(2),
            ])
        #expect(model.tag("replicatefrom", of: "10.213.0.13") == .string("10.213.0.12"))
        #expect(model.hostFlags["10.213.0.14"]?.balancerTags.map { "\($0.key)=\($0.value)" } == ["datacenter=dc1"])
        #expect(model.hostFlags["10.213.0.15"] == nil)
    }

    @Test("patroni.yml holds the member's tags; a balancer's replica checks ask Patroni for its tags")
    func rendering() throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.hosts)
        let member = try ClusterModelTests.host("10.213.0.13", directory)
        let patroni = try ClusterModelTests.rendered(
            PatroniNodeRole(host: member, model: model, wheel: []).steps, "/etc/patroni/patroni.yml", on: member)
        #expect(
            patroni.hasSuffix(
                """
                tags:
                  "clonefrom": false
                  "datacenter": "dc2"
                  "nofailover": false
                  "noloadbalance": false
                  "nosync": false
                  "replicatefrom": "10.213.0.12"

                """), "\(patroni)")
        let tagged = try ClusterModelTests.host("10.213.0.14", directory)
        let haproxy = try ClusterModelTests.rendered(
            HAProxyRole(model: model, haproxy: try #require(model.haproxy), host: tagged.name).steps,
            "/etc/haproxy/haproxy.cfg", on: tagged)
        for check in ["GET /primary\n", "OPTIONS /replica?tag_datacenter=dc1\n", "OPTIONS /sync?tag_datacenter=dc1\n"] {
            #expect(haproxy.contains("option httpchk \(check)"), "\(haproxy)")
        }
        let plain = try ClusterModelTests.host("10.213.0.15", directory)
        let untagged = try ClusterModelTests.rendered(
            HAProxyRole(model: model, haproxy: try #require(model.haproxy), host: plain.name).steps,
            "/etc/haproxy/haproxy.cfg", on: plain)
        #expect(untagged.contains("option httpchk OPTIONS /replica\n") && !untagged.contains("tag_"))
    }

    @Test("the server's name: /etc/hosts resolves it, /etc/hostname keeps it, the running name set when it differs")
    func serverName() throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.hosts)
        let steps = CommonRole(host: try ClusterModelTests.host("10.213.0.11", directory), model: model).steps
        let hosts = try #require(steps.compactMap { $0.resource as? LineInFile }.first { $0.path == "/etc/hosts" })
        #expect(hosts.line == "127.0.1.1 pgnode01")
        let file = try #require(steps.compactMap { $0.resource as? File }.first { $0.path == "/etc/hostname" })
        guard case .text(let name) = file.contents else {
            Issue.record("/etc/hostname has no text")
            return
        }
        #expect(name == "pgnode01\n")
        let command = try #require(steps.compactMap { $0.resource as? Command }.first)
        #expect(command.command == "hostname pgnode01" && command.unless == #"[ "$(hostname)" = pgnode01 ]"#)
        let balancer = CommonRole(host: try ClusterModelTests.host("10.213.0.15", directory), model: model).steps
        #expect(!balancer.contains { ($0.resource as? File)?.path == "/etc/hostname" })
    }

    @Test(
        "refused with the host and line: a bad pair or a hostile value, an unknown upstream, a leader that may not lead, a tag no member has, a bad name, another bind_address",
        arguments: [
            ("patroni_tags=\"datacenter\"", "patroni_tags of 10.213.0.13 holds 'datacenter', which is not key=value"),
            (
                "patroni_tags=\"datacenter=dc1;reboot\"",
                "patroni_tags of 10.213.0.13 holds 'datacenter=dc1;reboot', which is not key=value"
            ),
            (
                "patroni_replicatefrom=pgnode09",
                "patroni_replicatefrom 'pgnode09' of 10.213.0.13 is not another database host of the inventory"
            ),
            (
                "patroni_replicatefrom=pgnode03",
                "patroni_replicatefrom 'pgnode03' of 10.213.0.13 is not another database host of the inventory"
            ),
            ("hostname=pg_node", "hostname 'pg_node' of 10.213.0.13 is not a host name"),
            ("hostname=-pg", "hostname '-pg' of 10.213.0.13 is not a host name"),
            (
                "bind_address=10.0.0.3",
                "bind_address 10.0.0.3 of 10.213.0.13 is not the address Keel reaches it at (10.213.0.13)"
            ),
        ])
    func refused(flag: String, message: String) {
        let hosts = ClusterModelTests.hosts.replacingOccurrences(
            of: "10.213.0.13 hostname=pgnode03", with: "10.213.0.13 hostname=pgnode03 \(flag)")
        let error = ClusterModelTests().error(hosts: hosts)
        #expect(error?.message == message, "\(String(describing: error))")
        #expect(error?.location?.file.hasSuffix("hosts.ini") == true && error?.location?.line == 15)
    }

    @Test(
        "refused for the cluster: the [master] host with nofailover, a balancer tag no member has, too few sync replicas"
    )
    func refusedForTheCluster() {
        let model = ClusterModelTests()
        let master = model.error(
            hosts: ClusterModelTests.hosts.replacingOccurrences(
                of: "10.213.0.11 hostname=pgnode01", with: "10.213.0.11 hostname=pgnode01 patroni_tags=nofailover=true")
        )
        #expect(master?.message.hasPrefix("the [master] host 10.213.0.11 has nofailover=true") == true)
        let balancer = model.error(
            hosts: ClusterModelTests.hosts.replacingOccurrences(
                of: "10.213.0.14\n", with: "10.213.0.14 balancer_tags=datacenter=dc9\n"))
        #expect(
            balancer?.message
                == "balancer_tags of 10.213.0.14 ask for datacenter=dc9, which no member's patroni_tags has: its replica ports would route nowhere",
            "\(String(describing: balancer))")
        let noSync = ClusterModelTests.hosts
            .replacingOccurrences(of: "10.213.0.12 hostname=pgnode02", with: "10.213.0.12 patroni_tags=nosync=true")
            .replacingOccurrences(of: "10.213.0.13 hostname=pgnode03", with: "10.213.0.13 patroni_tags=nosync=true")
        let sync = model.error(hosts: noSync)
        #expect(
            sync?.message
                == "synchronous_node_count is 1 but the cluster has 0 replica(s) that may be synchronous (not nosync=true)",
            "\(String(describing: sync))")
        #expect(throws: Never.self) {
            try model.load(
                hosts: ClusterModelTests.hosts.replacingOccurrences(
                    of: "10.213.0.13 hostname=pgnode03",
                    with: "10.213.0.13 bind_address=10.213.0.13 postgresql_exists=true"))
        }
    }
}

extension HostFlagsTests {
    @Test(
        "local_postgresql_parameters: each member's own patroni.yml, evaluated with that host's facts; Keel's TLS files stay Keel's"
    )
    func localParameters() throws {
        let hosts = ClusterModelTests.hosts
            .replacingOccurrences(of: "10.213.0.12 hostname=pgnode02", with: "10.213.0.12 ansible_memtotal_mb=2000")
            .replacingOccurrences(of: "ansible_user=root", with: "ansible_user=root\nansible_memtotal_mb=8000")
        let vars =
            ClusterModelTests.vars + """

                local_postgresql_parameters:
                  - { option: "shared_buffers", value: "{{ (ansible_memtotal_mb * 0.25) | int }}MB" }
                  - { option: "max_worker_processes", value: 16 }
                  - { option: "ssl_cert_file", value: "/etc/tls/elsewhere.crt" }
                """
        let (model, directory) = try ClusterModelTests().load(hosts: hosts, vars: vars)
        #expect(
            model.localParameters(of: "10.213.0.12") == [
                "shared_buffers": .string("500MB"), "max_worker_processes": .integer(16),
            ])
        #expect(model.localParameters(of: "10.213.0.11")["shared_buffers"] == .string("2000MB"))
        #expect(model.localParameters(of: "10.213.0.14").isEmpty, "a balancer runs no PostgreSQL")
        #expect(!model.clusterParameters.contains { $0.option == "shared_buffers" }, "not in etcd")
        let member = try ClusterModelTests.host("10.213.0.12", directory)
        let patroni = try ClusterModelTests.rendered(
            PatroniNodeRole(host: member, model: model, wheel: []).steps, "/etc/patroni/patroni.yml", on: member)
        #expect(
            patroni.contains(
                """
                    ssl_key_file: "/etc/patroni/tls/server.key"
                    "max_worker_processes": 16
                    "shared_buffers": "500MB"
                  pg_hba:
                """), "\(patroni)")

        let wrong = ClusterModelTests().error(
            hosts: hosts,
            vars: ClusterModelTests.vars + "\nlocal_postgresql_parameters:\n  - { option: \"a b\", value: 1 }\n")
        #expect(
            wrong?.message.contains("local_postgresql_parameters of 10.213.0.11 option 'a b' cannot be used") == true,
            "\(String(describing: wrong))")
    }
}
