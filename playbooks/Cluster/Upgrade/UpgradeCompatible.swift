import Keel

/// `pg_upgrade --check` of the running cluster's schema, on a copy: a scratch cluster of the old release on a spare
/// port, loaded with `pg_dumpall --schema-only --no-role-passwords` of the running one, checked against a scratch
/// cluster of the new release initialized like it; the scratch directory is removed whatever happens. The running
/// cluster is only read (a dump), so this runs under `--check` too, days before the upgrade. Nothing to judge before
/// the new release is installed, nor once the upgrade stopped the old cluster (it was judged then).
struct UpgradeCompatible: Resource {
    let model: ClusterModel
    let upgraded: ClusterModel

    var description: String { "pg_upgrade --check against a schema-only copy" }

    /// Ports tried for the scratch clusters, two at a time (the old release's, then the new one's).
    static let ports = 15432...15530

    /// Prints the first port of ``ports`` that, with the next one, nothing listens on: one listing of the host's
    /// listeners, read once.
    static let freePorts: ShellCommand =
        "ss -Hltn | awk -v low=\(ports.lowerBound) -v high=\(ports.upperBound) '{ n = split($4, a, \":\"); "
        + "used[a[n]] = 1 } END { for (p = low; p < high; p += 2) if (!(p in used) && !((p + 1) in used)) "
        + "{ print p; exit } }'"

    var probe: String {
        let (old, new) = (model.binDirectory, upgraded.binDirectory)
        let initdb = { (bin: String, directory: String) in
            UpgradeSettings.initdb(bin, into: "\"$scratch\"/\(raw: directory)")
        }
        let pgctl = { (bin: String, directory: String) -> ShellCommand in
            "runuser -u postgres -- \(bin + "/pg_ctl") -D \"$scratch\"/\(raw: directory)"
        }
        let options = "-c listen_addresses='' -c unix_socket_directories='$scratch' -p $port"
        let cleanup: ShellCommand =
            "\(pgctl(old, "old")) -m immediate stop >/dev/null 2>&1; \(pgctl(new, "new")) -m immediate stop "
            + ">/dev/null 2>&1; cd /; rm -rf \"$top\""
        // Whatever is in the scratch folder is postgres's: written and read as postgres (PostgresControl.asPostgres).
        // Root makes it, then gives it to postgres, in a folder of root's that postgres can pass through but neither
        // list nor change: postgres cannot put anything in its place.
        let dumped = PostgresControl.asPostgres(
            "\(old + "/pg_dumpall") --schema-only --no-role-passwords -p \(model.postgresPort) > \"$scratch/schema.sql\""
        )
        let copy: ShellCommand =
            "\(initdb(old, "old")) && \(pgctl(old, "old")) -w -l \"$scratch/old.log\" -o \"\(raw: options)\" start "
            + ">/dev/null && \(dumped) && runuser -u postgres -- psql -Xq -h \"$scratch\" "
            + "-p \"$port\" -U \"$install_user\" -d postgres -f \"$scratch/schema.sql\" >/dev/null 2>&1 && "
            + "\(pgctl(old, "old")) -w stop >/dev/null && \(initdb(new, "new"))"
        let check = PostgresControl.asPostgres(
            "\(new + "/pg_upgrade") --check -b \(old) -B \(new) -d \"$scratch/old\" -D \"$scratch/new\" "
                + "-U \"$install_user\" -p \"$port\" -P $((port + 1)) -s \"$scratch\" > \"$scratch/check.log\" 2>&1",
            in: "\"$scratch\"")
        let probe: ShellCommand =
            "if [ ! -x \(new + "/pg_upgrade") ]; then echo upgrade-check=absent; "
            + "elif ! \(PostgresControl(model).running); then echo upgrade-check=stopped; else ( "
            + "top=$(mktemp -d /var/tmp/keel-upgrade-check.XXXXXX) && chmod 711 \"$top\" && scratch=$top/s && "
            + "mkdir -m 700 \"$scratch\" && chown postgres: \"$scratch\" && cd \"$scratch\" && export scratch "
            + "|| { echo upgrade-check=failed; echo no scratch directory in /var/tmp; exit 0; }; "
            + "gone() { \(cleanup); }; trap gone EXIT; "
            + "port=$(\(Self.freePorts)); "
            + "if [ -z \"$port\" ]; then echo upgrade-check=failed; echo no two free ports in "
            + "\(raw: String(Self.ports.lowerBound))-\(raw: String(Self.ports.upperBound)); "
            + "elif ! { \(UpgradeSettings.read(model)) && export port install_user && \(copy); }; then "
            + "echo upgrade-check=failed; echo the schema-only copy could not be made:; "
            + "\(PostgresControl.asPostgres("tail -n 15 \"$scratch/old.log\"")) 2>/dev/null; "
            + "elif \(check); then echo upgrade-check=ok; else echo upgrade-check=failed; "
            + "\(PostgresControl.asPostgres("tail -n 25 \"$scratch/check.log\"")); fi"
            + " ) fi"
        return probe.text
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let verdict = output.text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        switch verdict {
        case "upgrade-check=ok", "upgrade-check=absent", "upgrade-check=stopped": return []
        default:
            let said = output.text.split(separator: "\n").dropFirst().joined(separator: "\n")
            throw ResourceError(
                "pg_upgrade --check finds that the cluster on \(host.name) cannot be upgraded to PostgreSQL "
                    + "\(upgraded.postgresVersion) as it is:\n\(said.isEmpty ? output.text : said)\nmend what it names, "
                    + "then run again; the running cluster was not changed")
        }
    }
}
