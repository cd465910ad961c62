import Keel

/// PostgreSQL from Debian (its own cluster never created) and Patroni from the pushed wheel in a virtualenv that
/// uses Debian's Python libraries, configured for this member from the model.
struct PatroniNodeRole: Role {
    let host: HostContext
    let model: ClusterModel
    let wheel: [UInt8]

    private var wheelPath: String { "/opt/patroni/wheels/patroni-\(model.patroni.version)-py3-none-any.whl" }
    /// Where this release of Patroni lives (its version checked as a version by the model).
    private var venv: String { "/opt/patroni/\(model.patroni.version)" }
    /// The link to the running release's `bin` (its unit runs `bin/patroni` through it).
    static let binLink = "/opt/patroni/bin"
    /// Patroni's systemd unit, written by Keel: a member without it was never finished.
    static let unitFile = "/etc/systemd/system/patroni.service"
    private var restart: RollingRestart { PatroniRestarts.changedFiles(model, host: host.name) }

    /// PostgreSQL from Debian (or PGDG) and the Python libraries Patroni uses from the system.
    static func packages(_ model: ClusterModel) -> [String] {
        [
            PostgresPackages.server(model), "etcd-client", "python3-venv", "python3-psycopg2", "python3-etcd",
            "python3-urllib3", "python3-yaml", "python3-click", "python3-prettytable", "python3-dateutil",
            "python3-psutil", "python3-cdiff",
        ]
    }
    /// What the VIP's helper runs, on a member that may hold the VIP (Type B).
    static let vipPackages = ["iputils-arping", "sudo"]

    var steps: [Step] {
        get throws {
            let vip = try leaderVIP
            MainClusterOff().steps
            Package(Self.packages(model))
            Service("postgresql", state: .stopped, enabled: false)
            if model.patroni.upgrade {
                // The distribution's older Patroni stops if it runs, then goes (its configuration files stay): Keel's
                // runs from /opt/patroni.
                OldPatroniStop()
                Package("patroni", state: .absent)
            }
            Directory("/opt/patroni/wheels")
            File(wheelPath, contents: .bytes(wheel))
            // Each release in a directory of its own (a venv cannot move: its scripts name their path), built beside
            // the running one and switched to by renaming a link: a running Patroni never loses its files, and a
            // failed install leaves the old one in place. The new release then runs after a rolling restart.
            Command(
                "rm -rf \(venv) && python3 -m venv --system-site-packages \(venv) && "
                    + "\(venv)/bin/pip install -q --no-index --no-deps \(wheelPath) && "
                    + "ln -sfn \(venv)/bin \(Self.binLink).new && mv -T \(Self.binLink).new \(Self.binLink)",
                what: "Patroni \(model.patroni.version) installed in \(venv)",
                // Read from the files pip wrote, for the Python the venv's link leads to now (`python3.11`; an upgrade
                // of the system's Python changes it): `patroni --version` takes 0.4 s, starting Python 20 ms.
                unless: "[ \"$(readlink \(Self.binLink))\" = \(venv + "/bin") ] && [ -x \(venv)/bin/patroni ] && "
                    + "p=$(readlink -f \(venv)/bin/python3) && p=${p##*/} && case $p in python3.*) ;; "
                    + "*) p=python$(python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])');; esac && "
                    + "[ -d \(venv)/lib/$p/site-packages/patroni-\(model.patroni.version).dist-info ]"
            ).onChange(restart.handler)
            Directory(
                "\(ClusterModel.postgresHome)/\(model.postgresVersion)", mode: 0o700, owner: "postgres",
                group: "postgres")
            // Root-owned, so that postgres can read what is here but replace none of it.
            Directory("/etc/patroni", mode: 0o750, owner: "root", group: "postgres")
            Directory(PatroniAPI.credentialsDirectory, mode: 0o700)
            File.absent(PatroniAPI.formerCredentialsFile)
            Template(
                "cluster/patroni/patroni.env", to: "/etc/patroni/patroni.env", mode: 0o600,
                values: [
                    // Quoted as systemd reads an environment file back.
                    "cluster": .string(model.name),
                    "superuser_password": .string(environmentFileQuote(model.logins.superuser.password.reveal())),
                    "replication_password": .string(environmentFileQuote(model.logins.replication.password.reveal())),
                    "restapi_user": .string(environmentFileQuote(model.logins.restAPI.name)),
                    "restapi_password": .string(environmentFileQuote(model.logins.restAPI.password.reveal())),
                ], isSecret: true
            ).onChange(restart.handler)
            Template(
                "cluster/patroni/api.curlrc", to: PatroniAPI.credentialsFile, mode: 0o600,
                values: [
                    // Inside a quoted curl config value, backslash and quote are escaped.
                    "credentials": .string(
                        "\(model.logins.restAPI.name):\(model.logins.restAPI.password.reveal())"
                            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))
                ], isSecret: true)
            // PostgreSQL and Patroni find their certificate before patroni.yml turns TLS on.
            if let tls = model.tls, let issued = tls.issued(.database, on: host.name) {
                TLSFilesRole(files: .patroni, authority: tls.authority, issued: issued, handlers: tlsReloads).steps
            }
            if let tls = model.tls, let client = tls.issued(.apiClient, on: host.name) {
                TLSFilesRole(
                    files: .patroniAPIClient, authority: tls.apiClientAuthority, issued: client, handlers: tlsReloads
                ).steps
            }
            try configuration
            if let vip {
                // Only root moves the address: postgres may run exactly `keel-vip up` and `keel-vip down` through
                // sudo, so no capability reaches PostgreSQL, its backends or archive_command.
                Package(Self.vipPackages)
                Template(
                    "cluster/patroni/keel-vip", to: Self.vipHelper, mode: 0o755,
                    values: [
                        "cluster": .string(model.name), "vip": .string(vip.address), "prefix": .int(vip.prefix),
                        "interface": .string(vip.interface),
                    ])
                File(
                    Self.vipSudoers,
                    content: "# Managed by Keel: Patroni's VIP callback.\n"
                        + "postgres ALL=(root) NOPASSWD: \(Self.vipHelper) up, \(Self.vipHelper) down\n", mode: 0o440)
                Template(
                    "cluster/patroni/vip-callback.sh", to: "/etc/patroni/vip-callback.sh", mode: 0o755,
                    values: ["cluster": .string(model.name), "helper": .string(Self.vipHelper)])
            }
            Template(
                "cluster/patroni/patroni.service", to: Self.unitFile,
                values: [
                    "cluster": .string(model.name)
                ]
            ).onChange(restart.handler)
            if model.patroni.upgrade {
                // Handlers first, while the member is stopped: they must not mark the Patroni started next for a restart.
                FlushHandlers()
                PatroniRestarts.replacing(model, host: host.name)
            }
        }
    }

    /// patroni.yml, which Patroni applies on a reload (its pg_hba lines and etcd endpoints among others).
    var configuration: [Step] {
        get throws {
            [
                Template(
                    "cluster/patroni/patroni.yml", to: "/etc/patroni/patroni.yml", mode: 0o640, owner: "root",
                    group: "postgres", values: patroniValues(vip: try leaderVIP)
                )
                .onChange(Self.reload(model))
            ]
        }
    }

    /// Patroni reads a changed patroni.yml at the start of its next cycle, up to `loop_wait` seconds later, and
    /// publishes the parameters that then wait for a restart in that same cycle: the time by which it has done so
    /// stays on the host, for the run (or the next one, if this one is killed) to wait for before it looks
    /// (``PatroniPlays/dynamicConfig(_:)``). A Patroni not running yet reads the file when it starts: nothing to
    /// wait for.
    static func reload(_ model: ClusterModel) -> Handler {
        .run(
            name: "reload patroni",
            command: "if systemctl is-active -q patroni; then systemctl try-reload-or-restart patroni && "
                + "\(PendingRestart.stamp(reloadedMark, publishedWithin: model.patroni.loopWait + 5)); fi")
    }
    /// When the members have published what the last reload of patroni.yml made them flag (seconds since the epoch).
    static let reloadedMark = "/run/keel/patroni-reload-published"

    /// A renewed certificate reaches PostgreSQL, PgBouncer and Patroni's REST API by reloads: no connection drops.
    private var tlsReloads: [Handler] {
        [
            .run(
                name: "reload PostgreSQL's TLS files",
                command: "if pg_isready -q -h /var/run/postgresql -p \(model.postgresPort); then "
                    + "\(model.postgres.run("SELECT pg_reload_conf()")) >/dev/null; fi"),
            // Not `.reload`: on a new host PgBouncer is not installed yet, and systemctl fails on a unit it lacks.
            .run(
                name: "reload PgBouncer's TLS files",
                command: "if systemctl is-active -q pgbouncer; then systemctl reload pgbouncer; fi"),
            .run(
                name: "reload Patroni's TLS files",
                command: "if systemctl is-active -q patroni; then systemctl reload patroni; fi"),
        ]
    }

    /// The root-owned helper that moves the VIP when it follows the leader.
    static let vipHelper = "/usr/local/sbin/keel-vip"
    /// The sudoers entry that lets postgres run exactly ``vipHelper`` up and down.
    static let vipSudoers = "/etc/sudoers.d/keel-vip"
    /// Where Patroni keeps the passwords of its own connections (it writes the file itself).
    static let pgpass = ClusterModel.postgresHome + "/.pgpass_patroni"

    /// The VIP when it follows the Patroni leader: its address, and its prefix and interface on this host.
    private var leaderVIP: (address: String, prefix: Int, interface: String)? {
        get throws {
            guard let vip = model.vip, vip.placement == .leader else { return nil }
            let (interface, prefix) = try vip.binding(on: host, address: model.address(of: host.name))
            return (vip.address, prefix, interface)
        }
    }

    private func patroniValues(vip: (address: String, prefix: Int, interface: String)?) -> [String: TemplateValue] {
        let address = model.address(of: host.name)
        return [
            "cluster": .string(model.name), "member": .string(host.name),
            "api_address": .string("\(address):\(ClusterPorts.patroniAPI)"),
            "patroni_version": .string(model.patroni.version),
            "etcd_hosts": .string(
                model.etcdHosts.map { "\(model.address(of: $0)):\(ClusterPorts.etcdClient)" }.joined(separator: ",")),
            "dcs": .string(PatroniDynamicConfig.wanted(model).yaml(indent: 4)),
            "postgres_address": .string("\(address):\(model.postgresPort)"),
            "data_dir": .string(model.dataDirectory), "bin_dir": .string(model.binDirectory),
            // With the VIP on the leader itself, PostgreSQL must also accept connections to the VIP.
            "listen": .string(
                vip == nil ? "\(address),127.0.0.1:\(model.postgresPort)" : "0.0.0.0:\(model.postgresPort)"),
            "logins": .list(model.patroniLogins), "pgpass": .string(Self.pgpass),
            "tags": .string(JSONValue.object(model.patroniTags(of: host.name)).yaml(indent: 2)),
            "vip_callback": .bool(vip != nil),
            "tls": .bool(model.tls != nil), "tls_authority": .string(TLSFiles.patroni.authority),
            "tls_certificate": .string(TLSFiles.patroni.certificate), "tls_key": .string(TLSFiles.patroni.key),
            "api_client_authority": .string(TLSFiles.patroniAPIClient.authority),
            "api_client_certificate": .string(TLSFiles.patroniAPIClient.certificate),
            "api_client_key": .string(TLSFiles.patroniAPIClient.key),
            "etcd_scheme": .string(model.etcdScheme), "etcd_tls": .bool(model.etcdTLS),
            "restore_command": .string(model.backups?.restoreCommand ?? ""),
            "hba": .list(model.memberHBA.map { .string($0) }),
            "local_parameters": .string(JSONValue.object(model.localParameters(of: host.name)).yaml(indent: 4)),
        ]
    }
}
