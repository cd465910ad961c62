import Foundation
import Keel

/// The Prometheus exporters on one host, as ``MonitoringSettings`` has them: the node exporter everywhere, the
/// PostgreSQL exporter on a member, the PgBouncer exporter where PgBouncer runs. Each listens on the host's own
/// address, serves TLS with the host's certificate (when the cluster has a CA) and asks for the scrape account's
/// password (the exporters' `--web.config.file`).
struct MonitoringRole: Role {
    let host: HostContext
    let model: ClusterModel
    let settings: MonitoringSettings
    /// The PgBouncer exporter's package (``CarriedSoftware/pgbouncerExporter``).
    let pgbouncerExporter: [UInt8]

    /// What Keel writes for the exporters besides the packages' own (and `/etc/default` files); its presence
    /// marks the exporters as Keel's, to remove when monitoring is turned off.
    static let directory = "/etc/prometheus/keel"
    /// The exporters' certificate and key (``TLSService/exporters``).
    static let tlsFiles = TLSFiles(directory: directory + "/tls", account: "prometheus")
    static let webConfiguration = directory + "/web.yml"
    static let nodeExporter = "prometheus-node-exporter"
    static let postgresExporter = "prometheus-postgres-exporter"
    /// The exporters' packages, all of them.
    static let exporters = [nodeExporter, postgresExporter, PgBouncerExporterPackage.name]

    private var member: Bool { model.databaseHosts.contains(host.name) }
    /// PgBouncer's settings when it runs on this host.
    private var pgbouncer: PgBouncerSettings? {
        model.poolerHosts.contains(host.name) ? model.pgbouncer : nil
    }
    private var address: String { model.address(of: host.name) }

    /// The exporters' packages on this host.
    var packages: [String] {
        [Self.nodeExporter] + (member ? [Self.postgresExporter] : [])
    }

    /// Everything written before the packages, whose services start as they are installed: they start with
    /// Keel's configuration, never on every address without a password.
    var steps: [Step] {
        let restarts =
            [Handler.restart(Self.nodeExporter)] + (member ? [.restart(Self.postgresExporter)] : [])
            + (pgbouncer != nil ? [.restart(PgBouncerExporterRole.service)] : [])
        // The account the packages would make, made first so that their files can be its own.
        User("prometheus", home: "/var/lib/prometheus", shell: "/usr/sbin/nologin")
        Directory(Self.directory, mode: 0o750, owner: "root", group: "prometheus")
        if let tls = model.tls, let issued = tls.issued(.exporters, on: host.name) {
            TLSFilesRole(files: Self.tlsFiles, authority: tls.authority, issued: issued, handlers: restarts).steps
        }
        Template(
            "cluster/monitoring/web.yml", to: Self.webConfiguration, mode: 0o600, owner: "prometheus",
            group: "prometheus",
            values: [
                "cluster": .string(model.name), "tls": .bool(model.tls != nil),
                "certificate": .string(Self.tlsFiles.certificate), "key": .string(Self.tlsFiles.key),
                "user": .string(settings.scrapeUser), "hash": .string(settings.scrapeHash.reveal()),
            ], isSecret: true
        ).onChange(restarts)
        File("/etc/default/\(Self.nodeExporter)", content: arguments(ClusterPorts.nodeExporter, node: true))
            .onChange(.restart(Self.nodeExporter))
        if member {
            File(
                Self.postgresPassword, contents: .secret(settings.rolePassword), mode: 0o600, owner: "prometheus",
                group: "prometheus"
            ).onChange(.restart(Self.postgresExporter))
            // No secret here: the package's own scripts make it prometheus's, 0640, whenever it is configured.
            File(
                "/etc/default/\(Self.postgresExporter)",
                content: "# Managed by Keel: the PostgreSQL exporter of \(host.name), over the local socket.\n"
                    + "DATA_SOURCE_NAME=\n"
                    + "DATA_SOURCE_URI=\(environmentFileQuote(dataSource))\n"
                    + "DATA_SOURCE_USER=\(environmentFileQuote(settings.role))\n"
                    + "DATA_SOURCE_PASS_FILE=\(Self.postgresPassword)\n"
                    + arguments(ClusterPorts.postgresExporter, node: false),
                mode: 0o640, owner: "prometheus", group: "prometheus"
            ).onChange(.restart(Self.postgresExporter))
        }
        if let pgbouncer {
            PgBouncerExporterRole(
                host: host, model: model, settings: settings, pgbouncer: pgbouncer, package: pgbouncerExporter
            ).steps
        }
        Package(packages)
        for service in packages {
            Service(service, state: .started, enabled: true)
        }
    }

    /// Where the PostgreSQL exporter reads its role's password.
    static let postgresPassword = directory + "/postgres.password"

    /// The PostgreSQL exporter's connection after `postgresql://USER:PASSWORD@` (the exporter adds them): no
    /// host, the member's socket directory and port as parameters.
    private var dataSource: String {
        "/postgres?host=/var/run/postgresql&port=\(model.postgresPort)&sslmode=disable"
    }

    /// The `ARGS` line of an exporter's `/etc/default` file: its address, its web configuration and, for the node
    /// exporter, the state of the cluster's units (backups' timers and services included).
    private func arguments(_ port: Int, node: Bool) -> String {
        var flags = ["--web.listen-address=\(address):\(port)", "--web.config.file=\(Self.webConfiguration)"]
        if node {
            flags += [
                "--collector.systemd",
                "--collector.systemd.unit-include=(etcd|patroni|haproxy|keepalived|pgbouncer|pgbackrest-.*)[.](service|timer)",
            ]
        }
        let header = node ? "# Managed by Keel: the node exporter of \(host.name).\n" : ""
        return header + "ARGS=\(environmentFileQuote(flags.joined(separator: " ")))\n"
    }
}
