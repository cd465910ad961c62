import Foundation
import Keel
import Testing

@testable import Playbooks

/// etcd, Patroni's REST API and HAProxy's checks of it speak TLS with the cluster's certificates.
@Suite("TLS between the cluster's own services")
struct ClusterTransportTLSTests {
    /// The fixture's inventory with etcd on hosts of its own (Type B).
    private static let separateEtcd = ClusterModelTests.hosts.replacingOccurrences(
        of: "[etcd_cluster]\n10.213.0.11\n10.213.0.12\n10.213.0.13\n",
        with: "[etcd_cluster]\n10.213.0.21\n10.213.0.22\n10.213.0.23\n")

    @Test("etcd hosts of their own get certificates; etcd serves clients and peers over TLS and asks each for one")
    func etcd() throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.separateEtcd)
        let tls = try #require(model.tls)
        #expect(Set(tls.issued.keys.filter { $0.service == .etcd }.map(\.host)) == Set(model.etcdHosts))
        #expect(model.etcdEndpoints.hasPrefix("https://10.213.0.21:2379,"))
        let member = try ClusterModelTests.host("10.213.0.21", directory)
        let steps = EtcdRole(host: member, model: model).steps
        let key = try #require(
            steps.compactMap { $0.resource as? File }.first { $0.path == "/etc/etcd/tls/server.key" })
        #expect(key.mode == 0o600 && key.owner == "etcd")
        guard case .secret = key.contents else { Issue.record("the key is not a secret"); return }
        // A changed file or certificate restarts the members one at a time (a later serial play), never all at once.
        let rolling = EtcdPlays.rollingRestart(model, host: member.name)
        #expect(steps.first { ($0.resource as? Template)?.path == "/etc/default/etcd" }?.handlers == [rolling.handler])
        #expect(
            steps.first { ($0.resource as? File)?.path == "/etc/etcd/tls/server.crt" }?.handlers == [rolling.handler])
        let conf = try ClusterModelTests.rendered(steps, "/etc/default/etcd", on: member)
        for line in [
            #"ETCD_LISTEN_CLIENT_URLS="https://10.213.0.21:2379,https://127.0.0.1:2379""#,
            #"ETCD_INITIAL_ADVERTISE_PEER_URLS="https://10.213.0.21:2380""#, #"ETCD_CLIENT_CERT_AUTH="true""#,
            #"ETCD_PEER_CLIENT_CERT_AUTH="true""#, #"ETCD_PEER_TRUSTED_CA_FILE="/etc/etcd/tls/ca.crt""#,
        ] {
            #expect(conf.contains(line), "\(conf)")
        }
        // Keel's own etcdctl shows a certificate and checks etcd's against the CA.
        let wait = try #require(steps.compactMap { $0.resource as? WaitFor }.last)
        #expect(
            wait.check.text.contains(
                "--endpoints=https://10.213.0.21:2379 --cacert=/etc/etcd/tls/ca.crt --cert=/etc/etcd/tls/server.crt "
                    + "--key=/etc/etcd/tls/server.key endpoint health"), "\(wait.check)")
    }

    @Test(
        "Patroni serves its REST API over TLS to clients of the API clients' CA alone and is etcd's client by certificate; Keel's curl verifies the member and presents the host's client certificate"
    )
    func patroni() throws {
        let (model, directory) = try ClusterModelTests().load(hosts: Self.separateEtcd)
        let member = try ClusterModelTests.host("10.213.0.12", directory)
        let text = try ClusterModelTests.rendered(
            try PatroniNodeRole(host: member, model: model, wheel: []).steps, "/etc/patroni/patroni.yml", on: member)
        for fragment in [
            "  certfile: \"/etc/patroni/tls/server.crt\"\n  keyfile: \"/etc/patroni/tls/server.key\"\n"
                + "  cafile: \"/etc/patroni/tls/api/ca.crt\"\n  verify_client: required\n",
            "ctl:\n  cacert: \"/etc/patroni/tls/ca.crt\"\n  certfile: \"/etc/patroni/tls/api/client.crt\"\n"
                + "  keyfile: \"/etc/patroni/tls/api/client.key\"\n",
            "etcd3:\n  hosts: \"10.213.0.21:2379,10.213.0.22:2379,10.213.0.23:2379\"\n  protocol: \"https\"\n  cacert: \"/etc/patroni/tls/ca.crt\"\n  cert: \"/etc/patroni/tls/server.crt\"\n  key: \"/etc/patroni/tls/server.key\"\n",
        ] {
            #expect(text.contains(fragment), "\(text)")
        }
        #expect(
            PatroniAPI(model, member: "10.213.0.12").get("/cluster").text
                == "curl -sf -m 5 --cacert /etc/patroni/tls/ca.crt $([ -r /etc/patroni/tls/api/client.key ] && "
                + "echo --cert /etc/patroni/tls/api/client.crt --key /etc/patroni/tls/api/client.key) "
                + "https://10.213.0.12:8008/cluster")
        // The member's client files: the API clients' CA and its own certificate, the key postgres's alone.
        let steps = try PatroniNodeRole(host: member, model: model, wheel: []).steps
        let files = steps.compactMap { $0.resource as? File }
        let authority = try #require(files.first { $0.path == "/etc/patroni/tls/api/ca.crt" })
        guard case .text(let pem) = authority.contents else { Issue.record("no CA"); return }
        #expect(pem == model.tls?.apiClientAuthority && pem != model.tls?.authority)
        let key = try #require(files.first { $0.path == "/etc/patroni/tls/api/client.key" })
        #expect(key.mode == 0o600 && key.owner == "postgres")
    }

    @Test(
        "HAProxy checks each member's REST API over TLS, its certificate verified against the CA by name, the checks' own client certificate presented"
    )
    func haproxy() throws {
        let (model, directory) = try ClusterModelTests().load()
        let balancer = try ClusterModelTests.host("10.213.0.14", directory)
        let steps = HAProxyRole(model: model, haproxy: try #require(model.haproxy), host: "10.213.0.14").steps
        let authority = try #require(
            steps.compactMap { $0.resource as? File }.first { $0.path == HAProxyRole.authorityFile })
        guard case .text(let pem) = authority.contents else { Issue.record("no CA"); return }
        #expect(pem == model.tls?.authority)
        let config = try ClusterModelTests.rendered(steps, "/etc/haproxy/haproxy.cfg", on: balancer)
        #expect(
            config.contains(
                "server 10.213.0.12 10.213.0.12:6432 check port 8008 check-ssl verify required "
                    + "ca-file /etc/haproxy/cluster-ca.crt verifyhost 10.213.0.12 crt /etc/haproxy/patroni-checks.pem\n"
            ),
            "\(config)")
        // The write listener takes a member once its PostgreSQL left recovery; each read listener falls back to
        // the leader, by the write listener's check of each member.
        let master = try #require(
            config.components(separatedBy: "listen master\n").last?.components(separatedBy: "listen ").first)
        #expect(
            master.contains(
                "    option httpchk GET /primary\n    http-check expect status 200\n"
                    + "    http-check expect string '\"xlog\": {\"location\"'\n") && !master.contains("backup"),
            "\(master)")
        let replicas = try #require(
            config.components(separatedBy: "listen replicas\n").last?.components(separatedBy: "listen ").first)
        #expect(
            replicas.contains("option httpchk OPTIONS /replica\n")
                && replicas.contains("    server 10.213.0.12_leader 10.213.0.12:6432 backup track master/10.213.0.12\n"),
            "\(replicas)")
        let checks = try #require(
            steps.compactMap { $0.resource as? File }.first { $0.path == HAProxyRole.checksCertificate })
        #expect(checks.mode == 0o600)
        guard case .secret = checks.contents else { Issue.record("the checks' key is not a secret"); return }
    }

    @Test("without tls_cert_generate everything stays plain; etcd_tls_enable then has nothing to use")
    func plain() throws {
        let (model, directory) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\ntls_cert_generate: false\n")
        #expect(!model.etcdTLS && model.etcdEndpoints.hasPrefix("http://"))
        #expect(
            PatroniAPI(model, member: "10.213.0.12").get("/health") == "curl -sf -m 5 http://10.213.0.12:8008/health")
        let member = try ClusterModelTests.host("10.213.0.12", directory)
        let text = try ClusterModelTests.rendered(
            try PatroniNodeRole(host: member, model: model, wheel: []).steps, "/etc/patroni/patroni.yml", on: member)
        #expect(!text.contains("certfile") && text.contains("  protocol: \"http\"\n"), "\(text)")
        let error = ClusterModelTests().error(
            vars: ClusterModelTests.vars + "\ntls_cert_generate: false\netcd_tls_enable: true\n")
        #expect(error?.description.contains("etcd_tls_enable is true but the cluster has no certificates") == true)
    }

    @Test("pre-flight refuses to switch a running etcd between plain HTTP and TLS, naming the variable that keeps it")
    func runningEtcdKeepsItsScheme() throws {
        let (model, directory) = try ClusterModelTests().load()
        let member = try ClusterModelTests.host("10.213.0.11", directory)
        let preflight = Preflight(model: model, host: member.name)
        #expect(preflight.probe.contains("etcd_peers="))
        let base = "os=debian 12\n"
        #expect(try preflight.changes(from: ProbeOutput(text: base + "etcd_peers=https\n"), on: member).isEmpty)
        #expect {
            try preflight.changes(from: ProbeOutput(text: base + "etcd_peers=http\n"), on: member)
        } throws: {
            "\($0)".contains(
                "etcd here already serves a cluster whose members talk plain HTTP; they cannot switch in place "
                    + "without losing quorum: set etcd_tls_enable: false to keep it as it is")
        }
    }
}
