import Keel

/// The plays of `keel upgrade`.
enum UpgradePlays {
    /// The first stage, which changes nothing of the running cluster: the new release's packages beside the old on
    /// every member (Debian's own `main` cluster never created), each of `extensions` available there, then on the
    /// leader a new cluster initialized like the running one and `pg_upgrade --check` run against it.
    static func prepared(_ model: ClusterModel, upgraded: ClusterModel, leader: String, extensions: [String])
        -> [Play]
    {
        [
            Play("postgresql \(upgraded.postgresVersion) installed", on: model.pattern(model.databaseHosts)) { _ in
                MainClusterOff().steps
                Package([PostgresPackages.server(upgraded), PostgresPackages.client(upgraded)])
                ExtensionsAvailable(version: upgraded.postgresVersion, extensions: extensions)
            },
            Play("pg_upgrade --check", on: leader) { _ in
                Command(
                    initialized(model, upgraded: upgraded), what: "a new cluster in \(upgraded.dataDirectory)",
                    creates: upgraded.dataDirectory + "/PG_VERSION")
                Command(checked(model, upgraded: upgraded), what: "pg_upgrade --check")
            },
        ]
    }

    /// The running cluster's encoding, locale, data checksums and install user (the role with oid 10), as shell
    /// variables `encoding`, `collate`, `ctype`, `checksums` and `install_user`: pg_upgrade needs them alike.
    private static func runningSettings(_ model: ClusterModel) -> ShellCommand {
        let show = { (name: String) in model.postgres.run("SHOW \(name)") }
        return [
            "encoding=$(\(show("server_encoding")))", "collate=$(\(show("lc_collate")))",
            "ctype=$(\(show("lc_ctype")))", "checksums=$(\(show("data_checksums")))",
            "install_user=$(\(model.postgres.run("SELECT rolname FROM pg_authid WHERE oid = 10")))",
        ].joined(separator: " && ")
    }

    /// initdb of the new cluster, like the running one.
    private static func initialized(_ model: ClusterModel, upgraded: ClusterModel) -> ShellCommand {
        "\(runningSettings(model)) && install -d -o postgres -g postgres -m 700 \(upgraded.dataDirectory) && "
            + "runuser -u postgres -- \(upgraded.binDirectory + "/initdb") -D \(upgraded.dataDirectory) "
            + "--encoding=\"$encoding\" --lc-collate=\"$collate\" --lc-ctype=\"$ctype\" --username=\"$install_user\" "
            + "$([ \"$checksums\" = on ] && echo --data-checksums) >/dev/null"
    }

    /// pg_upgrade --check against the running cluster (it reads the running server's socket from its pid file).
    private static func checked(_ model: ClusterModel, upgraded: ClusterModel) -> ShellCommand {
        "\(runningSettings(model)) && cd \(ClusterModel.postgresHome) && runuser -u postgres -- "
            + "\(upgraded.binDirectory + "/pg_upgrade") --check --link -b \(model.binDirectory) "
            + "-B \(upgraded.binDirectory) -d \(model.dataDirectory) -D \(upgraded.dataDirectory) "
            + "-U \"$install_user\" -p \(model.postgresPort) -P \(model.postgresPort + 1)"
    }
}

/// Every extension the running cluster's databases hold has its files for the new release on this host: else
/// pg_upgrade would fail half way.
struct ExtensionsAvailable: Resource {
    let version: Int
    let extensions: [String]

    var description: String { "extensions available in PostgreSQL \(version)" }

    var probe: String {
        let checks: [ShellCommand] = extensions.map { name in
            "[ -e \("/usr/share/postgresql/\(version)/extension/\(name).control") ] || echo \("missing=" + name)"
        }
        // Before the release is installed (a --check run), there is nothing to judge yet.
        let installed: ShellCommand = "[ -x \("/usr/lib/postgresql/\(version)/bin/postgres") ]"
        let probe: ShellCommand =
            "if \(installed); then \((checks + ["true"]).joined(separator: "; ")); else echo absent; fi"
        return probe.text
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text != "absent" else { return [] }
        let missing = output.text.split(separator: "\n").filter { $0.hasPrefix("missing=") }.map { $0.dropFirst(8) }
        guard missing.isEmpty else {
            throw ResourceError(
                "PostgreSQL \(version) on \(host.name) lacks the extension(s) \(missing.joined(separator: ", ")) the "
                    + "databases use: install their packages for \(version) (as postgresql-\(version)-NAME), then run "
                    + "again; the running cluster was not changed")
        }
        return []
    }
}
