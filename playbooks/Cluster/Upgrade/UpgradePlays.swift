import Foundation
import Keel

/// The plays of `keel upgrade`, each stage recorded on its host (``UpgradePlan/stage(_:_:command:timeout:)``) so that
/// a run killed at any step resumes where it stopped, or rolls back while the new leader has not started.
struct UpgradePlays {
    let plan: UpgradePlan
    /// The cluster as it runs, and as it will.
    let model: ClusterModel
    let upgraded: ClusterModel

    /// The most seconds the balancers' PgBouncers hold their clients' queries while the leader is down: past it
    /// they are resumed (and fail until the new leader serves).
    static let pauseBound = 180
    /// The running cluster's settings that the new one must share, recorded on the leader while it runs.
    static let settingsFile = JournalRecord.directory + "/upgrade-settings"

    private var replicas: [String] { model.databaseHosts.filter { $0 != plan.leader } }
    /// The hosts taking part: the members and the repository host.
    var marked: [String] { model.databaseHosts + (model.backups?.repositoryHost.map { [$0] } ?? []) }
    private var poolers: String? { model.balancerPoolers.isEmpty ? nil : model.pattern(model.balancerPoolers) }
    /// Beside the new data directory while pg_upgrade runs: a run killed there makes the new cluster afresh.
    private var upgrading: String { upgraded.dataDirectory + ".upgrading" }
    private var oldControl: String { model.dataDirectory + "/global/pg_control" }

    /// The first stage, which changes nothing of the running cluster: the new release's packages beside the old on
    /// every member (Debian's own `main` cluster never created), each of `extensions` available there, then on the
    /// leader the running cluster's settings recorded, a new cluster initialized like it and `pg_upgrade --check`
    /// run against it.
    func prepared(extensions: [String]) -> [Play] {
        [
            Play("postgresql \(upgraded.postgresVersion) installed", on: model.pattern(model.databaseHosts)) { _ in
                MainClusterOff().steps
                Package([PostgresPackages.server(upgraded), PostgresPackages.client(upgraded)])
                ExtensionsAvailable(version: upgraded.postgresVersion, extensions: extensions)
            },
            Play("pg_upgrade --check", on: plan.leader) { _ in
                Command(recordedSettings, what: "the running cluster's settings", creates: Self.settingsFile)
                Command(
                    "\(settings) && \(initialized)", what: "a new cluster in \(upgraded.dataDirectory)",
                    creates: upgraded.dataDirectory + "/PG_VERSION")
                // Not once pg_upgrade itself has run (a resumed upgrade): the old cluster is the new one's then.
                Command(
                    "[ -e \(oldControl + ".old") ] || { \(settings) && \(pgUpgrade(check: true)); }",
                    what: "pg_upgrade --check")
                if model.backups != nil {
                    Command(backupsReadNewRelease, what: "pgBackRest reads PostgreSQL \(upgraded.postgresVersion)")
                }
            },
        ]
    }

    /// The old release (`retired`, the cluster as it ran before) removed once the upgrade finished: its data
    /// directory deleted and its packages purged on every member (on the leader the old directory's files are the
    /// new one's too: deleting it only unlinks them).
    static func cleanup(_ retired: ClusterModel) -> [Play] {
        [
            Play("postgresql \(retired.postgresVersion) removed", on: retired.pattern(retired.databaseHosts)) { _ in
                Command(
                    "rm -rf \(retired.dataDirectory)", what: "\(retired.dataDirectory) deleted",
                    unless: "[ ! -e \(retired.dataDirectory) ]")
                Package([PostgresPackages.server(retired), PostgresPackages.client(retired)], state: .absent)
            }
        ]
    }

    /// Succeeds when the installed pgBackRest reads the new release's control file (an offline stanza-create in a
    /// scratch repository, on the new cluster the first stage initialized); else fails saying to update it: a
    /// pgBackRest older than the release could archive nothing of the upgraded cluster.
    private var backupsReadNewRelease: ShellCommand {
        let version = upgraded.postgresVersion
        return "scratch=$(mktemp -d) && chown postgres \"$scratch\" && { runuser -u postgres -- pgbackrest "
            + "--config=/dev/null --stanza=keel-upgrade-check --pg1-path=\(upgraded.dataDirectory) "
            + "--repo1-path=\"$scratch/repo\" --lock-path=\"$scratch\" --log-level-file=off --log-level-console=error "
            + "--no-online stanza-create >/dev/null 2>\"$scratch/error\"; read=$?; said=$(head -c 300 \"$scratch/error\"); "
            + "rm -rf \"$scratch\"; [ \"$read\" = 0 ] || { echo \"the installed pgBackRest ($(pgbackrest version)) "
            + "cannot back up PostgreSQL \(raw: String(version)) ($said): install a newer pgbackrest on every host first, then run "
            + "again; the running cluster was not changed\" >&2; false; }; }"
    }

    /// The upgrade itself, from the plan recorded on every host taking part: the replicas stopped, the balancers'
    /// PgBouncers paused, the leader stopped after a CHECKPOINT and upgraded in place (pg_upgrade --link), the
    /// configuration rendered for the new release, the cluster's keys in etcd reset, the new leader started (the
    /// point of no return) and the pools resumed; then the replicas cloned afresh from it, the repository upgraded
    /// and a full backup taken, the statistics rebuilt, and the cluster's parameters applied (the new leader starts
    /// with those PostgreSQL reads at its start: the rest would keep the pools paused through Patroni's cycle).
    func upgrade() -> [Play] {
        let start = Play("upgrade begun", on: model.pattern(marked), anyErrorsFatal: true) { _ in plan.begun() }
        let stopped = Play("patroni stopped on the replicas", on: model.pattern(replicas)) { _ in
            plan.stage(
                "stopped", "patroni and postgresql \(model.postgresVersion) stopped",
                command: "systemctl disable --now patroni && \(PostgresControl(model).stopped)")
        }
        let paused = poolers.map { pattern in
            Play("pgbouncer paused", on: pattern) { _ in
                PoolersPaused(leader: plan.leader, longest: Self.pauseBound)
            }
        }
        let leaderUpgraded = Play("leader upgraded", on: plan.leader) { _ in
            let checkpoint: ShellCommand =
                "if \(PostgresControl(model).running); then \(model.postgres.run("CHECKPOINT")) >/dev/null; fi"
            plan.stage(
                "stopped", "a CHECKPOINT, then patroni and postgresql \(model.postgresVersion) stopped",
                command: "\(checkpoint) && systemctl disable --now patroni && \(PostgresControl(model).stopped)")
            plan.stage(
                "upgraded", "pg_upgrade --link into \(upgraded.dataDirectory)", command: linked,
                timeout: model.limits.dataCopyTimeout)
        }
        let configured = configuration(upgraded)
        let leading = Play("new leader", on: plan.leader) { host in
            plan.stage(
                "keys-reset", "the cluster's keys in etcd deleted (the new release has a new system identifier)",
                command: Etcdctl(model, client: .patroni)("del --prefix \(model.dcsPrefix)") + " >/dev/null")
            plan.stage(
                UpgradePlan.started, "patroni started on PostgreSQL \(upgraded.postgresVersion)",
                command: "systemctl enable --now patroni")
            PatroniPlays.leading(upgraded, host: host.name)
            WaitFor(
                .command(PatroniAPI(upgraded, member: host.name).acceptsWrites, what: "the new leader to take writes"),
                timeout: .seconds(60))
        }
        let cloned = Play("replicas cloned from the new leader", on: model.pattern(replicas)) { host in
            plan.stage(
                "cloned", "\(upgraded.dataDirectory) cloned from \(plan.leader)",
                command:
                    "\(directories) && find \(upgraded.dataDirectory) -mindepth 1 -delete && systemctl enable --now patroni"
            )
            MemberInService(model: upgraded, host: host.name).steps
            WaitFor(
                .command(PatroniAPI(upgraded, member: host.name).caughtUp(upgraded), what: "streaming, caught up"),
                timeout: upgraded.limits.dataCopyTimeout)
        }
        return [start, stopped] + (paused.map { [$0] } ?? []) + [leaderUpgraded, configured, leading]
            + resumed + [cloned] + backedUp() + [
                Play("statistics rebuilt", on: plan.leader) { _ in
                    plan.stage(
                        "analyzed", "vacuumdb --all --analyze-in-stages",
                        command: "runuser -u postgres -- \(upgraded.binDirectory + "/vacuumdb") --all "
                            + "--analyze-in-stages --quiet -p \(upgraded.postgresPort)",
                        timeout: upgraded.limits.dataCopyTimeout)
                },
                // The new leader started from patroni.yml's seed (the parameters PostgreSQL reads at its start);
                // the rest now, with every member running, and no client waiting on it.
                PatroniPlays.dynamicConfig(upgraded),
                Play("upgrade finished", on: model.pattern(marked)) { host in
                    plan.stage(
                        JournalRecord.finished, "recorded as finished",
                        command: host.name == plan.leader ? "rm -f \(Self.settingsFile)" : "true")
                },
                PatroniPlays.inService(upgraded),
            ]
    }

    /// The old cluster back as it was, before the new leader started: the leader's old data directory whole again
    /// (pg_upgrade --link renamed its `pg_control`), the new one removed, the configuration of the old release
    /// rendered, Patroni started on the leader, then on the replicas, whose data directories were never touched.
    func rollback() -> [Play] {
        let leader = Play("old leader back", on: plan.leader) { host in
            plan.stage(
                "rolled-back", "\(model.dataDirectory) whole again, \(upgraded.dataDirectory) removed",
                command:
                    "\(Self.formerRunEnded) && { [ ! -e \(oldControl + ".old") ] || mv \(oldControl + ".old") \(oldControl); } && "
                    + "rm -rf \(upgraded.dataDirectory) \(upgrading) \(Self.settingsFile)")
            Service("patroni", state: .started, enabled: true)
            PatroniPlays.leading(model, host: host.name)
        }
        return [configuration(model), leader] + resumed + [
            Play("replicas back", on: model.pattern(replicas)) { host in
                Service("patroni", state: .started, enabled: true)
                MemberInService(model: model, host: host.name).steps
            },
            Play("upgrade rolled back", on: model.pattern(marked)) { _ in
                plan.stage(JournalRecord.abandoned, "recorded as rolled back", command: "true")
            },
            PatroniPlays.inService(model),
        ]
    }

    /// The balancers' PgBouncers resumed once HAProxy routes to the leader again (none without them).
    private var resumed: [Play] {
        poolers.map { pattern in
            [
                Play("pgbouncer resumed", on: pattern) { _ in
                    PoolersResumed(leader: .same(plan.leader), longest: Self.pauseBound)
                }
            ]
        } ?? []
    }

    /// patroni.yml and pgbackrest.conf for `release` (the data directory and programs they name), and its packages
    /// kept from unattended upgrades.
    private func configuration(_ release: ClusterModel) -> Play {
        Play("configuration for postgresql \(release.postgresVersion)", on: model.pattern(marked)) { host in
            UnattendedUpgradesHold(host: host.name, model: release).steps
            if release.databaseHosts.contains(host.name) {
                try PatroniNodeRole(host: host, model: release, wheel: []).configuration
            }
            if let backups = PgBackRestPlays.configuration(release, on: host) { backups }
        }
    }

    /// The repository upgraded to the new release (`stanza-upgrade`), checked, and a full backup of it.
    private func backedUp() -> [Play] {
        guard let backups = upgraded.backups else { return [] }
        let pgbackrest = PgBackRest(backups)
        return [
            Play("backups of postgresql \(upgraded.postgresVersion)", on: backups.repositoryHost ?? plan.leader) { _ in
                plan.stage(
                    "backed-up", "pgbackrest stanza-upgrade, check, then a full backup",
                    command: "\(pgbackrest("stanza-upgrade")) >/dev/null && \(pgbackrest("check")) && "
                        + "\(pgbackrest("--type=full backup"))",
                    timeout: upgraded.limits.dataCopyTimeout)
            }
        ]
    }

    /// Waits until no pg_upgrade runs: one that a killed run started goes on without it (its output goes to a
    /// log), and must end before its work is judged or undone.
    private static let formerRunEnded = Poll(
        until: "! pgrep -x pg_upgrade >/dev/null", seconds: 600,
        onTimeout: .fail("a pg_upgrade started earlier still runs after 600 s")
    ).command

    /// The running cluster's encoding, locale, data checksums and install user (the role with oid 10) written to
    /// ``settingsFile`` as `name=value` lines: pg_upgrade needs them alike, and reads them once the cluster stopped.
    private var recordedSettings: ShellCommand {
        let show = { (name: String) in model.postgres.run("SHOW \(name)") }
        return "encoding=$(\(show("server_encoding"))) && collate=$(\(show("lc_collate"))) && "
            + "ctype=$(\(show("lc_ctype"))) && checksums=$(\(show("data_checksums"))) && "
            + "install_user=$(\(model.postgres.run("SELECT rolname FROM pg_authid WHERE oid = 10"))) && "
            + "mkdir -p \(JournalRecord.directory) && printf 'encoding=%s\\ncollate=%s\\nctype=%s\\nchecksums=%s\\n"
            + "install_user=%s\\n' \"$encoding\" \"$collate\" \"$ctype\" \"$checksums\" \"$install_user\" > "
            + "\(Self.settingsFile + ".new") && mv \(Self.settingsFile + ".new") \(Self.settingsFile)"
    }

    /// The settings of ``recordedSettings`` read back into shell variables of their names.
    private var settings: ShellCommand {
        ["encoding", "collate", "ctype", "checksums", "install_user"].map { name -> ShellCommand in
            "\(raw: name)=$(sed -n \("s/^\(name)=//p") \(Self.settingsFile))"
        }.joined(separator: " && ")
    }

    /// The new release's directory (as a deploy makes it) and its data directory, postgres's own.
    private var directories: ShellCommand {
        "install -d -o postgres -g postgres -m 700 \(ClusterModel.postgresHome + "/\(upgraded.postgresVersion)") "
            + "\(upgraded.dataDirectory)"
    }

    /// initdb of the new cluster, like the running one.
    private var initialized: ShellCommand {
        "\(directories) && "
            + "runuser -u postgres -- \(upgraded.binDirectory + "/initdb") -D \(upgraded.dataDirectory) "
            + "--encoding=\"$encoding\" --lc-collate=\"$collate\" --lc-ctype=\"$ctype\" --username=\"$install_user\" "
            + "$([ \"$checksums\" = on ] && echo --data-checksums) >/dev/null"
    }

    /// pg_upgrade from the old cluster to the new, with `--check` against the running one (it reads the running
    /// server's socket from its pid file); its output kept in a log, shown when it fails.
    private func pgUpgrade(check: Bool) -> ShellCommand {
        let log = "/var/log/postgresql/keel-pg_upgrade.log"
        return "{ cd \(ClusterModel.postgresHome) && runuser -u postgres -- \(upgraded.binDirectory + "/pg_upgrade") "
            + "\(raw: check ? "--check " : "")--link --jobs=\"$(nproc)\" -b \(model.binDirectory) -B \(upgraded.binDirectory) "
            + "-d \(model.dataDirectory) -D \(upgraded.dataDirectory) -U \"$install_user\" "
            + "-p \(model.postgresPort) -P \(model.postgresPort + 1) > \(log) 2>&1 "
            + "|| { tail -n 40 \(log) >&2; \(raw: check ? "" : "echo 'the old cluster is whole: keel upgrade --rollback starts it again' >&2; ")false; }; }"
    }

    /// The leader's data upgraded in place, from whatever an earlier run killed in this stage left: a pg_upgrade
    /// cut short (its mark still there) is undone first (the old `pg_control` back, the new cluster made afresh:
    /// it never started, so the old data is whole); one that finished is not run again.
    private var linked: ShellCommand {
        "\(Self.formerRunEnded) && \(settings) && if [ -e \(upgrading) ]; then { [ ! -e \(oldControl + ".old") ] || "
            + "mv \(oldControl + ".old") \(oldControl); } && rm -rf \(upgraded.dataDirectory) && rm -f \(upgrading); fi "
            + "&& if [ ! -e \(oldControl + ".old") ]; then { [ -e \(upgraded.dataDirectory + "/PG_VERSION") ] || "
            + "{ \(initialized); }; } && touch \(upgrading) && \(pgUpgrade(check: false)) && rm -f \(upgrading); fi"
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
