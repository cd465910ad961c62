import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("Monitoring: the exporters' targets and the scrape block an operator pastes into Prometheus")
struct MonitoringTargetsTests {
    @Test("off by default: no targets, no block, no monitoring passwords made")
    func off() throws {
        let (model, directory) = try ClusterModelTests().load()
        #expect(model.monitoring == nil && model.monitoringTargets.isEmpty)
        #expect(ScrapeConfigs.yaml(model).isEmpty && ScrapeConfigs.contents(model, .init(cluster: model.name)).isEmpty)
        let secrets = try String(contentsOfFile: directory + "/.keel-secrets.yml", encoding: .utf8)
        #expect(!secrets.contains("monitoring"))
    }

    @Test(
        "keel_monitoring: a node exporter on every host; PostgreSQL and Patroni on the members; PgBouncer where it runs; HAProxy on the balancers and at the VIP; each labelled"
    )
    func targets() throws {
        let (model, directory) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\nkeel_monitoring: true\n")
        let seen = model.monitoringTargets.map { "\($0.exporter) \($0.endpoint) \($0.role)" }
        #expect(
            seen == [
                "node 10.213.0.11:9100 database", "postgres 10.213.0.11:9187 database",
                "patroni 10.213.0.11:8008 database", "pgbouncer 10.213.0.11:9127 database",
                "node 10.213.0.12:9100 database", "postgres 10.213.0.12:9187 database",
                "patroni 10.213.0.12:8008 database", "pgbouncer 10.213.0.12:9127 database",
                "node 10.213.0.13:9100 database", "postgres 10.213.0.13:9187 database",
                "patroni 10.213.0.13:8008 database", "pgbouncer 10.213.0.13:9127 database",
                "node 10.213.0.14:9100 balancer", "pgbouncer 10.213.0.14:9127 balancer",
                "haproxy 10.213.0.14:8405 balancer", "node 10.213.0.15:9100 balancer",
                "pgbouncer 10.213.0.15:9127 balancer", "haproxy 10.213.0.15:8405 balancer",
                "vip 10.213.0.100:8405 vip",
            ], "\(seen)")
        // The passwords and the salt are the secrets file's, kept for the next run.
        let secrets = try String(contentsOfFile: directory + "/.keel-secrets.yml", encoding: .utf8)
        #expect(
            secrets.contains("monitoring_scrape_password:") && secrets.contains("monitoring_role_password:")
                && secrets.contains("monitoring_scrape_salt:"))
    }

    @Test(
        "the scrape block: one job per exporter, TLS with the cluster's CA where it serves it, the password file where it asks, the client certificate for Patroni"
    )
    func scrapeBlock() throws {
        let (model, _) = try ClusterModelTests().load(vars: ClusterModelTests.vars + "\nkeel_monitoring: true\n")
        var files = ScrapeConfigs.Files(in: "/etc/prometheus", cluster: model.name)
        (files.authority, files.password) = ("/etc/prometheus/ca.crt", "/etc/prometheus/pw")
        let yaml = ScrapeConfigs.yaml(model, files: files)
        let jobs = yaml.split(separator: "\n").filter { $0.hasPrefix("  - job_name: ") }
        #expect(
            jobs == [
                #"  - job_name: "pg-lab-node""#, #"  - job_name: "pg-lab-postgres""#,
                #"  - job_name: "pg-lab-pgbouncer""#, #"  - job_name: "pg-lab-patroni""#,
                #"  - job_name: "pg-lab-haproxy""#,
                #"  - job_name: "pg-lab-vip""#,
            ])
        let node = try #require(yaml.components(separatedBy: "  - job_name: ").dropFirst().first)
        #expect(
            node.contains(
                "    scheme: https\n    tls_config:\n      ca_file: \"/etc/prometheus/ca.crt\"\n    basic_auth:\n"
                    + "      username: \"prometheus\"\n      password_file: \"/etc/prometheus/pw\"\n"), "\(node)")
        #expect(
            node.contains(
                "      - targets: [\"10.213.0.14:9100\"]\n        labels: {cluster: \"pg-lab\", host: \"10.213.0.14\", role: \"balancer\"}\n"
            ), "\(node)")
        let patroni = try #require(yaml.components(separatedBy: "  - job_name: ").dropFirst(4).first)
        #expect(
            patroni.contains(
                "    scheme: https\n    tls_config:\n      ca_file: \"/etc/prometheus/ca.crt\"\n"
                    + "      cert_file: \"/etc/prometheus/pg-lab-patroni-client.crt\"\n"
                    + "      key_file: \"/etc/prometheus/pg-lab-patroni-client.key\"\n    static_configs:\n")
                && !patroni.contains("basic_auth"), "\(patroni)")
        #expect(!node.contains("cert_file"), "only Patroni asks for a client certificate")
        // What --write-files writes: the scraper's certificate of the API clients' CA, the key and password secret.
        let contents = ScrapeConfigs.contents(model, files)
        #expect(contents.map(\.path) == [files.authority, files.password, files.clientCertificate, files.clientKey])
        #expect(contents.allSatisfy { "\($0.content)" == "***" })
        let vip = try #require(yaml.components(separatedBy: "  - job_name: ").last)
        #expect(vip.contains("scheme: https") && vip.contains("basic_auth") && vip.contains("10.213.0.100:8405"))
        // It names where the password is kept, never the password.
        let password = try #require(model.monitoring?.scrapePassword.reveal())
        #expect(!yaml.contains(password))
    }
}
