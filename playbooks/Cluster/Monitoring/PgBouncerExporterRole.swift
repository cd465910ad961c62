import Keel

/// The PgBouncer exporter on a host where PgBouncer runs (``PgBouncerExporterPackage``), written before its
/// package like the other exporters. It runs as their account, `prometheus` (the package runs it as `postgres`,
/// who cannot read the web configuration), and reads PgBouncer's console over its socket as the monitoring role,
/// one of PgBouncer's `stats_users`, with the password in a passfile only that account reads.
struct PgBouncerExporterRole: Role {
    let host: HostContext
    let model: ClusterModel
    let settings: MonitoringSettings
    let pgbouncer: PgBouncerSettings
    /// The package's bytes, pushed to the host.
    let package: [UInt8]

    static let service = PgBouncerExporterPackage.name
    static let passfile = MonitoringRole.directory + "/pgbouncer.pgpass"
    static let dropIn = "/etc/systemd/system/\(service).service.d"
    /// Where the pushed package is kept.
    static let packageFile = "/var/lib/keel/packages/" + PgBouncerExporterPackage.file

    var steps: [Step] {
        let restart = Handler.restart(Self.service)
        Directory(Self.dropIn)
        File(
            Self.dropIn + "/keel.conf",
            content: "# Managed by Keel: run as the account of the other exporters.\n[Service]\nUser=prometheus\n"
        ).onChange(restart)
        File(
            Self.passfile, contents: .secret(Secret(passfileLine)), mode: 0o600, owner: "prometheus",
            group: "prometheus"
        ).onChange(restart)
        File(
            "/etc/default/\(Self.service)",
            content: "# Managed by Keel: the PgBouncer exporter of \(host.name), over PgBouncer's socket.\n"
                + "PGBOUNCER_EXPORTER_CONNECTION_STRING=\(environmentFileQuote(connection))\n"
                + "PGPASSFILE=\(Self.passfile)\n"
                + "ARGS=\(environmentFileQuote(arguments))\n"
        ).onChange(restart)
        Directory("/var/lib/keel/packages", mode: 0o700)
        File(Self.packageFile, contents: .bytes(package), mode: 0o600)
        Command(
            AptGet.install(Self.packageFile),
            what: "PgBouncer exporter \(PgBouncerExporterPackage.version) installed",
            unless: "[ \"$(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' \(Self.service) 2>/dev/null)\" = "
                + "'\(PgBouncerExporterPackage.version) ii ' ]", detached: true)
        Service(Self.service, state: .started, enabled: true)
    }

    /// The console of this host's PgBouncer, through its socket (TLS, which PgBouncer may require of clients,
    /// does not apply there).
    private var connection: String {
        "host=/var/run/postgresql port=\(pgbouncer.port) dbname=pgbouncer user=\(settings.role) sslmode=disable"
    }

    /// The passfile's one line, for any host: `:` and `\` in the password escaped, as libpq reads them.
    private var passfileLine: String {
        let password = settings.rolePassword.reveal()
            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        return "*:\(pgbouncer.port):pgbouncer:\(settings.role):\(password)\n"
    }

    /// Its address and web configuration; no process metrics of PgBouncer (they need PgBouncer's own account).
    private var arguments: String {
        "--web.listen-address=\(model.address(of: host.name)):\(ClusterPorts.pgbouncerExporter) "
            + "--web.config.file=\(MonitoringRole.webConfiguration) --pgBouncer.pid-file="
    }
}
