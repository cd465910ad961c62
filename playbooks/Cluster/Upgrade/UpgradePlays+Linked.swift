import Foundation
import Keel

/// The leader upgraded in place (`pg_upgrade --link`), from whatever a killed run left, and undone while the new
/// cluster never ran.
extension UpgradePlays {
    /// Waits until no pg_upgrade runs: one that a killed run started goes on without it (its output goes to a
    /// log), and must end before its work is judged or undone.
    static let formerRunEnded = Poll(
        until: "! pgrep -x pg_upgrade >/dev/null", seconds: 600,
        onTimeout: .fail("a pg_upgrade started earlier still runs after 600 s")
    ).command

    /// The running cluster's encoding, locale, data checksums and install user (the role with oid 10) written to
    /// ``settingsFile`` as `name=value` lines: pg_upgrade needs them alike, and reads them once the cluster stopped.
    var recordedSettings: ShellCommand {
        let format = UpgradeSettings.names.map { $0 + "=%s\\n" }.joined()
        let values = UpgradeSettings.names.map { "\"$\($0)\"" }.joined(separator: " ")
        return
            "\(UpgradeSettings.read(model)) && mkdir -p \(JournalRecord.directory) && printf \(format) \(raw: values) > "
            + "\(Self.settingsFile + ".new") && mv \(Self.settingsFile + ".new") \(Self.settingsFile)"
    }

    /// The settings of ``recordedSettings`` read back into shell variables of their names.
    var settings: ShellCommand {
        UpgradeSettings.names.map { name -> ShellCommand in
            "\(raw: name)=$(sed -n \("s/^\(name)=//p") \(Self.settingsFile))"
        }.joined(separator: " && ")
    }

    /// The new release's directory (as a deploy makes it) and its data directory, postgres's own.
    var directories: ShellCommand {
        let folders: ShellCommand =
            "\(ClusterModel.postgresHome + "/\(upgraded.postgresVersion)") \(upgraded.dataDirectory)"
        return PostgresControl.asPostgres("mkdir -p -m 700 \(folders) && chmod 700 \(folders)")
    }

    /// Fails, removing nothing, when the new cluster ever ran beyond pg_upgrade: Patroni started it (it keeps the
    /// configuration pg_upgrade left as `postgresql.base.conf`, and its own in `patroni.dynamic.json`), or it runs or
    /// ran without a clean shutdown. Past that, the files `--link` shares hold its writes: the old cluster is lost.
    var newClusterNeverRan: ShellCommand {
        let data = upgraded.dataDirectory
        let state: ShellCommand =
            "runuser -u postgres -- env LC_ALL=C \(upgraded.binDirectory + "/pg_controldata") \(data) 2>/dev/null "
            + "| sed -n 's/^Database cluster state: *//p'"
        return "{ [ ! -e \(data + "/PG_VERSION") ] || { [ ! -e \(data + "/postgresql.base.conf") ] && "
            + "[ ! -e \(data + "/patroni.dynamic.json") ] && case \"$(\(state))\" in 'shut down'|'') true;; *) false;; esac; "
            + "} || { echo \"PostgreSQL \(raw: String(upgraded.postgresVersion)) ran in \(raw: data) after pg_upgrade: "
            + "its writes are in the files it shares with the old cluster, which cannot start again; nothing was removed "
            + "(restore the last backup taken before the upgrade instead)\" >&2; false; }; }"
    }

    /// What pg_upgrade --link did to the old data directory undone (its `pg_control` back), the new one removed:
    /// as postgres, whose folders they are.
    var newClusterUndone: ShellCommand {
        PostgresControl.asPostgres(
            "{ [ ! -e \(oldControl + ".old") ] || mv \(oldControl + ".old") \(oldControl); } && "
                + "rm -rf \(upgraded.dataDirectory) \(upgrading)")
    }

    /// initdb of the new cluster, like the running one.
    var initialized: ShellCommand {
        "\(directories) && \(UpgradeSettings.initdb(upgraded.binDirectory, into: "\(upgraded.dataDirectory)"))"
    }

    /// pg_upgrade --link from the stopped old cluster to the new; its output kept in a log, shown when it fails.
    var pgUpgrade: ShellCommand {
        let log = Self.pgUpgradeLog
        let upgrade = PostgresControl.asPostgres(
            "exec \(upgraded.binDirectory + "/pg_upgrade") --link --jobs=\"$(nproc)\" "
                + "-b \(model.binDirectory) -B \(upgraded.binDirectory) -d \(model.dataDirectory) "
                + "-D \(upgraded.dataDirectory) -U \"$install_user\" -p \(model.postgresPort) "
                + "-P \(model.postgresPort + 1) > \(log) 2>&1", in: "\(ClusterModel.postgresHome)")
        return "{ export install_user && \(upgrade) || { \(PostgresControl.asPostgres("tail -n 40 \(log)")) >&2; "
            + "echo 'the old cluster is whole: keel upgrade --rollback starts it again' >&2; false; }; }"
    }

    /// The leader's data upgraded in place, from whatever an earlier run killed in this stage left: a pg_upgrade
    /// cut short (its mark still there) is undone first (the old `pg_control` back, the new cluster made afresh:
    /// it never started, so the old data is whole); one that finished is not run again.
    var linked: ShellCommand {
        "\(Self.formerRunEnded) && \(settings) && if [ -e \(upgrading) ]; then \(newClusterUndone); fi "
            + "&& if [ ! -e \(oldControl + ".old") ]; then { [ -e \(upgraded.dataDirectory + "/PG_VERSION") ] || "
            + "{ \(initialized); }; } && \(PostgresControl.asPostgres("touch \(upgrading)")) && \(pgUpgrade) && "
            + "\(PostgresControl.asPostgres("rm -f \(upgrading)")); fi"
    }
}
