import Foundation
import Keel
import Testing
import X509
import Yams

@testable import Playbooks

@Suite("Monitoring: the exporters each host runs, who may read them, and the alerts on them")
struct MonitoringRoleTests {
    static let on = ClusterModelTests.vars + "\nkeel_monitoring: true\n"

    @Test("bcrypt: crypt(3)'s known answer; the same password and salt secret give the same hash, which verifies")
    func bcrypt() {
        // Openwall's test vector for $2a$.
        #expect(
            Bcrypt.hash("U*U", setting: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.")
                == "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW")
        let hash = Bcrypt.hash(Secret("scrape-me"), saltSecret: Secret("salt-1"))
        #expect(hash.hasPrefix("$2b$10$") && hash.count == 60, "\(hash)")
        #expect(Bcrypt.hash(Secret("scrape-me"), saltSecret: Secret("salt-1")) == hash)
        #expect(Bcrypt.hash(Secret("scrape-me"), saltSecret: Secret("salt-2")) != hash)
        #expect(Bcrypt.hash("scrape-me", setting: hash) == hash)
        #expect(Bcrypt.hash("scrape-mE", setting: hash) != hash)
        #expect(
            Bcrypt.encode([0xff, 0x00, 0x10]) == "9u.O" && Bcrypt.encode(Array(repeating: 0, count: 16)).count == 22)
    }

    @Test(
        "a member: node and PostgreSQL exporters on its address, TLS and the scrape password in their web configuration, the role's password 0600"
    )
    func member() throws {
        let (model, directory) = try ClusterModelTests().load(vars: Self.on)
        let settings = try #require(model.monitoring)
        let host = try ClusterModelTests.host("10.213.0.12", directory)
        let steps = MonitoringRole(host: host, model: model, settings: settings, pgbouncerExporter: [7, 7]).steps
        let packages = steps.compactMap { $0.resource as? Package }.flatMap(\.names)
        #expect(
            packages == ["prometheus-node-exporter", "prometheus-postgres-exporter"])
        let web = try ClusterModelTests.rendered(steps, MonitoringRole.webConfiguration, on: host)
        #expect(
            web.contains("tls_server_config:\n  cert_file: \"/etc/prometheus/keel/tls/server.crt\"\n")
                && web.contains("basic_auth_users:\n  \"prometheus\": \"\(settings.scrapeHash.reveal())\"\n"), "\(web)")
        let template = try #require(steps.compactMap { $0.resource as? Template }.first)
        #expect(template.isSecret && template.mode == 0o600 && template.owner == "prometheus")
        let files = Dictionary(
            uniqueKeysWithValues: steps.compactMap { $0.resource as? File }.map { ($0.path, $0) })
        let node = try #require(files["/etc/default/prometheus-node-exporter"])
        guard case .text(let arguments) = node.contents else { throw CancellationError() }
        #expect(
            arguments.contains("--web.listen-address=10.213.0.12:9100 --web.config.file=/etc/prometheus/keel/web.yml"),
            "\(arguments)")
        // The connection without its password, in a file the package's scripts hand to prometheus at every
        // configure; the password in one of Keel's own, 0600.
        let postgres = try #require(files["/etc/default/prometheus-postgres-exporter"])
        guard case .text(let source) = postgres.contents else { throw CancellationError() }
        #expect(postgres.mode == 0o640 && postgres.owner == "prometheus" && postgres.group == "prometheus")
        #expect(
            source.contains(
                "DATA_SOURCE_NAME=\nDATA_SOURCE_URI=\"/postgres?host=/var/run/postgresql&port=5432&sslmode=disable\"\n"
                    + "DATA_SOURCE_USER=keel_monitoring\nDATA_SOURCE_PASS_FILE=/etc/prometheus/keel/postgres.password\n"
            ),
            "\(source)")
        #expect(!source.contains(settings.rolePassword.reveal()))
        let password = try #require(files[MonitoringRole.postgresPassword])
        #expect(password.mode == 0o600 && password.owner == "prometheus")
        guard case .secret = password.contents else { throw CancellationError() }
        let services = steps.compactMap { $0.resource as? Service }.map(\.name)
        #expect(services == ["prometheus-pgbouncer-exporter"] + packages)

        // PgBouncer's exporter: the carried package, run as prometheus, reading the console over the socket with
        // the role's password from a passfile only prometheus reads.
        guard case .bytes(let carried) = files[PgBouncerExporterRole.packageFile]?.contents,
            case .text(let dropIn) = files[PgBouncerExporterRole.dropIn + "/keel.conf"]?.contents
        else { throw CancellationError() }
        #expect(carried == [7, 7] && dropIn.hasSuffix("[Service]\nUser=prometheus\n"))
        let pgbouncer = try #require(files["/etc/default/prometheus-pgbouncer-exporter"])
        guard case .text(let exporter) = pgbouncer.contents else { throw CancellationError() }
        #expect(
            exporter.contains(
                "PGBOUNCER_EXPORTER_CONNECTION_STRING=\"host=/var/run/postgresql port=6432 dbname=pgbouncer "
                    + "user=keel_monitoring sslmode=disable\"\nPGPASSFILE=/etc/prometheus/keel/pgbouncer.pgpass\n"
                    + "ARGS=\"--web.listen-address=10.213.0.12:9127 --web.config.file=/etc/prometheus/keel/web.yml "
                    + "--pgBouncer.pid-file=\"\n"), "\(exporter)")
        #expect(!exporter.contains(settings.rolePassword.reveal()))
        let passfile = try #require(files[PgBouncerExporterRole.passfile])
        #expect(passfile.mode == 0o600 && passfile.owner == "prometheus")
        guard case .secret(let line) = passfile.contents else { throw CancellationError() }
        #expect(line.reveal() == "*:6432:pgbouncer:keel_monitoring:\(settings.rolePassword.reveal())\n")
        let install = try #require(steps.compactMap { $0.resource as? Command }.first)
        #expect(
            install.unless?.text
                == "[ \"$(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' prometheus-pgbouncer-exporter 2>/dev/null)\" = '1:0.10.2-2 ii ' ]"
        )
        let pgbouncerSteps = PgBouncerRole(host: host, model: model, settings: try #require(model.pgbouncer)).steps
        #expect(
            try ClusterModelTests.rendered(pgbouncerSteps, "/etc/pgbouncer/pgbouncer.ini", on: host)
                .contains("\nstats_users = keel_monitoring\n"))
        #expect(
            try ClusterModelTests.rendered(pgbouncerSteps, PgBouncerRole.userlist, on: host)
                .contains("\"keel_monitoring\" \"\(settings.rolePassword.reveal())\"\n"))

        // What the exporters log in with: pg_hba lets the role in over the socket with its password, before peer.
        #expect(
            Array(model.memberHBA.prefix(2)) == ["local all \"keel_monitoring\" scram-sha-256", "local all all peer"])
        let objects = DatabaseObjectsRole(model: model).steps
        #expect(objects.contains { ($0.resource as? PostgresRole)?.name == "keel_monitoring" })
        #expect(objects.contains { $0.resource.description == "pg_monitor granted to keel_monitoring" })
    }

    @Test(
        "a balancer: the node exporter, and HAProxy's /metrics on every address over TLS for the scrape account; nothing of it without keel_monitoring"
    )
    func balancer() throws {
        let (model, directory) = try ClusterModelTests().load(vars: Self.on)
        let host = try ClusterModelTests.host("10.213.0.14", directory)
        let steps = MonitoringRole(
            host: host, model: model, settings: try #require(model.monitoring), pgbouncerExporter: []
        ).steps
        #expect(
            steps.compactMap { $0.resource as? Package }.flatMap(\.names)
                == ["prometheus-node-exporter"])
        let haproxySteps = HAProxyRole(model: model, haproxy: try #require(model.haproxy), host: host.name).steps
        let haproxy = try ClusterModelTests.rendered(haproxySteps, HAProxyRole.configuration, on: host)
        // Bound to the balancer's address and the VIP, never every address; the header checked by its digest, no
        // bcrypt: Prometheus's own header, computed here from the password.
        let monitoring = try #require(model.monitoring)
        let header = "Basic " + Data("prometheus:\(monitoring.scrapePassword.reveal())".utf8).base64EncodedString()
        let digest = sha256Hex(Data(header.utf8))
        #expect(HAProxyRole.scrapeDigest(monitoring) == digest)
        #expect(
            haproxy.contains(
                "frontend prometheus\n    mode http\n    bind 10.213.0.14:8405 ssl crt /etc/haproxy/keel.pem\n"
                    + "    bind 10.213.0.100:8405 ssl crt /etc/haproxy/keel.pem\n"
                    + "    http-request auth realm metrics unless { req.fhdr(authorization),sha2(256),hex,lower -m str "
                    + "\(digest) }\n"
                    + "    http-request use-service prometheus-exporter if { path /metrics }\n"), "\(haproxy)")
        #expect(!haproxy.contains("userlist") && !haproxy.contains("$2b$"), "\(haproxy)")
        let pem = try #require(
            haproxySteps.compactMap { $0.resource as? File }.first { $0.path == HAProxyRole.certificate })
        #expect(pem.mode == 0o600)
        guard case .secret(let both) = pem.contents else { throw CancellationError() }
        #expect(both.reveal().contains("-----END CERTIFICATE-----\n-----BEGIN "), "one PEM block a line")
        // HAProxy's own certificate (its PgBouncer has another), naming the VIP too: Prometheus reaches it there.
        let issued = try #require(model.tls?.issued(.haproxy, on: "10.213.0.14"))
        #expect(both.reveal().hasPrefix(issued.certificate) && both.reveal().contains(issued.key.reveal()))
        #expect(issued.certificate != model.tls?.issued(.pooler, on: "10.213.0.14")?.certificate)
        let names = try Certificate(pemEncoded: issued.certificate).extensions.subjectAlternativeNames
        #expect(names?.contains(.ipAddress(.init(contentBytes: [10, 213, 0, 100]))) == true)

        // Off: HAProxy's and Patroni's files are what they were before monitoring existed; HAProxy keeps its own
        // certificate for its stats page.
        let (plain, plainDirectory) = try ClusterModelTests().load()
        let plainHost = try ClusterModelTests.host("10.213.0.14", plainDirectory)
        let plainSteps = HAProxyRole(model: plain, haproxy: try #require(plain.haproxy), host: plainHost.name).steps
        let plainConfig = try ClusterModelTests.rendered(plainSteps, HAProxyRole.configuration, on: plainHost)
        #expect(!plainConfig.contains("prometheus") && !plainConfig.contains("8405"))
        #expect(
            plainSteps.compactMap { $0.resource as? File }.first { $0.path == HAProxyRole.certificate }?
                .contents != nil)
        #expect(plainConfig.contains("    bind *:7000 ssl crt /etc/haproxy/keel.pem\n"), "\(plainConfig)")
        #expect(plain.memberHBA.first == "local all all peer")
    }

    @Test(
        "off: every host's exporters that Keel installed are stopped and purged with Keel's files; where it installed none, nothing runs"
    )
    func off() throws {
        let (model, _) = try ClusterModelTests().load()
        let play = try #require(DeployFlow().playbook(model, carrying: CarriedSoftware()).plays.last)
        #expect(play.name == "monitoring" && play.tags == ["monitoring"])
        let command = MonitoringPlays.removed
        #expect(command.unless?.text == "[ ! -e /etc/prometheus/keel ]")
        #expect(
            command.command.text.contains(
                "apt-get purge -y -q -o DPkg::Lock::Timeout=300 prometheus-node-exporter prometheus-postgres-exporter "
                    + "prometheus-pgbouncer-exporter")
                && command.command.text.hasSuffix(
                    "&& rm -rf /etc/prometheus/keel /etc/systemd/system/prometheus-pgbouncer-exporter.service.d "
                        + "/var/lib/keel/packages/prometheus-pgbouncer-exporter_0.10.2-2_amd64.deb && systemctl daemon-reload"
                ),
            "\(command.command.text)")
    }

    @Test(
        "the alert rules: valid YAML naming the cluster's own jobs and limits, a member down, no leader, lag, backups, archiving, the VIP, the disk"
    )
    func alertRules() throws {
        let (model, _) = try ClusterModelTests().load(vars: Self.on + "pgbackrest_install: true\n")
        let yaml = AlertRules.yaml(model)
        let parsed = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let groups = try #require(parsed["groups"] as? [[String: Any]])
        let rules = try #require(groups.first?["rules"] as? [[String: Any]])
        let names = rules.compactMap { $0["alert"] as? String }
        #expect(
            names == [
                "KeelMemberDown", "KeelNoLeader", "KeelReplicaLag", "KeelArchivingFailing", "KeelDiskNearlyFull",
                "KeelBackupFailed", "KeelBackupTooOld", "KeelVIPMissing",
            ], "\(names)")
        let expressions = Dictionary(
            uniqueKeysWithValues: rules.map { ($0["alert"] as? String ?? "", $0["expr"] as? String ?? "") })
        #expect(expressions["KeelReplicaLag"]?.contains("> 1048576)") == true)
        #expect(
            expressions["KeelMemberDown"]?.hasPrefix("up{cluster=\"pg-lab\", job=~\"pg-lab-(patroni|postgres)\"} == 0")
                == true)
        #expect(expressions["KeelVIPMissing"] == "up{job=\"pg-lab-vip\"} == 0")
        #expect(expressions["KeelBackupTooOld"]?.hasSuffix("> 93600") == true, "a day and two hours with daily diffs")
        let plain = try ClusterModelTests().load()
        #expect(AlertRules.yaml(plain.0).isEmpty)
    }
}
