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
    var marked: [String] { model.databaseAndRepositoryHosts }
    private var poolers: String? { model.balancerPoolers.isEmpty ? nil : model.pattern(model.balancerPoolers) }
    /// Beside the new data directory while pg_upgrade runs: a run killed there makes the new cluster afresh.
    private var upgrading: String { upgraded.dataDirectory + ".upgrading" }
    private var oldControl: String { model.dataDirectory + "/global/pg_control" }

    /// The first stage, which changes nothing of the running cluster: the new release's packages beside the old on
    /// every member (Debian's own `main` cluster never created), each of `extensions` available there, then on the
    /// leader the running cluster's settings recorded, a new cluster initialized like it, and `pg_upgrade --check`
    /// run against a schema-only copy of the running one (``UpgradeCompatible``).
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
                UpgradeCompatible(model: model, upgraded: upgraded)
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
                    PostgresControl.asPostgres("rm -rf \(retired.dataDirectory)"),
                    what: "\(retired.dataDirectory) deleted",
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
        // The scratch folder is postgres's: written and read as postgres.
        let created = PostgresControl.asPostgres(
            "pgbackrest --config=/dev/null --stanza=keel-upgrade-check --pg1-path=\(upgraded.dataDirectory) "
                + "--repo1-path=\"$scratch/repo\" --lock-path=\"$scratch\" --log-level-file=off "
                + "--log-level-console=error --no-online stanza-create >/dev/null 2>\"$scratch/error\"")
        return "scratch=$(mktemp -d) && chown postgres \"$scratch\" && export scratch && { \(created); read=$?; "
            + "said=$(\(PostgresControl.asPostgres("head -c 300 \"$scratch/error\"")));"
            + " rm -rf \"$scratch\"; [ \"$read\" = 0 ] || { echo \"the installed pgBackRest ($(pgbackrest version)) "
            + "cannot back up PostgreSQL \(raw: String(version)) ($said): install a newer pgbackrest on every host first, then run "
            + "again; the running cluster was not changed\" >&2; false; }; }"
    }

    /// The upgrade itself, from the plan recorded on every host taking part: the replicas stopped, the balancers'
    /// PgBouncers paused, the leader stopped after a CHECKPOINT and upgraded in place (pg_upgrade --link), the
    /// configuration rendered for the new release, the cluster's keys in etcd reset, the new leader started (the
    /// point of no return) and the pools resumed; then the replicas cloned afresh from it, the repository upgraded
    /// and a full backup taken, the statistics rebuilt, and the cluster's parameters applied (the new leader starts
    /// with those PostgreSQL reads at its start: the rest would keep the pools paused through Patroni's cycle).
    /// A kept replica (``UpgradePlan/kept``) streams until the leader's last WAL, then stops on the old release
    /// until ``finish()``.
    func upgrade() -> [Play] {
        let start = Play("upgrade begun", on: model.pattern(marked), anyErrorsFatal: true) { _ in plan.begun() }
        // Before anything stops: the leader's stop would end a long transaction (its client sees an error). Once
        // a resumed run finds the leader stopped, there is none.
        let quiet = Play("no long transaction on the leader", on: plan.leader) { _ in
            WaitFor(
                .command(
                    "! \(PostgresControl(model).running) || \(SwitchedOver.noneOlder(model))",
                    what: "no client transaction older than \(model.limits.maximumTransactionSeconds) s "
                        + "(max_transaction_sec)"),
                timeout: .seconds(SwitchedOver.longTransactionWait))
        }
        let stopped = Play("patroni stopped on the replicas", on: model.pattern(cloned)) { _ in
            plan.stage(
                "stopped", "patroni and postgresql \(model.postgresVersion) stopped",
                command: "systemctl disable --now patroni && \(PostgresControl(model).stopped)")
        }
        let paused = poolers.map { pattern in
            Play("pgbouncer paused", on: pattern) { _ in
                PoolersPaused(leader: plan.leader, longest: Self.pauseBound)
            }
        }
        let leaderStopped = Play("leader stopped", on: plan.leader) { _ in
            let checkpoint: ShellCommand =
                "if \(PostgresControl(model).running); then \(model.postgres.run("CHECKPOINT")) >/dev/null; fi"
            plan.stage(
                "stopped", "a CHECKPOINT, then patroni and postgresql \(model.postgresVersion) stopped",
                command: "\(checkpoint) && systemctl disable --now patroni && \(PostgresControl(model).stopped)"
                    + (plan.kept == nil ? "" : " && \(lastCheckpointShared)"))
        }
        let leaderUpgraded = Play("leader upgraded", on: plan.leader) { _ in
            plan.stage(
                "upgraded", "pg_upgrade --link into \(upgraded.dataDirectory)", command: linked,
                timeout: model.limits.dataCopyTimeout)
        }
        let configured = configuration(upgraded)
        let leading = Play("new leader", on: plan.leader) { host in
            plan.stage(
                "keys-reset", "the cluster's keys in etcd deleted (the new release has a new system identifier)",
                command: keysReset)
            plan.stage(
                UpgradePlan.started, "patroni started on PostgreSQL \(upgraded.postgresVersion)",
                command: "systemctl enable --now patroni")
            PatroniPlays.leading(upgraded, host: host.name)
            WaitFor(
                .command(PatroniAPI(upgraded, member: host.name).acceptsWrites, what: "the new leader to take writes"),
                timeout: .seconds(60))
        }
        let end = Play("upgrade finished", on: model.pattern(marked)) { _ in
            plan.stage(UpgradePlan.awaitingFinish, "recorded as awaiting keel upgrade --finish", command: "true")
        }
        return [start, quiet] + held + [stopped] + (paused.map { [$0] } ?? []) + [leaderStopped] + keptStopped
            + [leaderUpgraded, configured, leading] + resumed + [clonedFromLeader(cloned)]
            + backedUp(upgraded, stage: "backed-up", on: plan.leader)
            + [
                Play("statistics rebuilt", on: plan.leader) { _ in
                    plan.stage(
                        "analyzed", "vacuumdb --all --analyze-in-stages",
                        command: "runuser -u postgres -- \(upgraded.binDirectory + "/vacuumdb") --all "
                            + "--analyze-in-stages --quiet -p \(upgraded.postgresPort)",
                        timeout: upgraded.limits.dataCopyTimeout)
                },
                // The new leader started from patroni.yml's seed (the parameters PostgreSQL reads at its start);
                // the rest now, with every member running, and no client waiting on it.
                PatroniPlays.dynamicConfig(upgraded, on: serving),
            ] + (plan.kept == nil ? finished : [end, PatroniPlays.inService(upgraded, on: serving)])
    }

    /// The kept replica cloned on the new release, and the upgrade recorded as finished.
    func finish() -> [Play] {
        (plan.kept.map { [clonedFromLeader([$0])] } ?? []) + finished
    }

    /// The upgrade recorded as finished on every host taking part, and every member in service.
    private var finished: [Play] {
        [
            Play("upgrade finished", on: model.pattern(marked)) { host in
                plan.stage(
                    JournalRecord.finished, "recorded as finished",
                    command: host.name == plan.leader ? "rm -f \(Self.settingsFile)" : "true")
            },
            PatroniPlays.inService(upgraded),
        ]
    }

    /// The members the upgraded cluster runs on until ``finish()``: all but the kept replica.
    private var serving: [String] { model.databaseHosts.filter { $0 != plan.kept } }
    /// The replicas the upgrade stops and clones afresh: all but the kept one.
    private var cloned: [String] { replicas.filter { $0 != plan.kept } }

    /// `hosts`, replicas, cloned from the new leader into the new release's data directory (their old ones kept).
    private func clonedFromLeader(_ hosts: [String]) -> Play {
        Play("replicas cloned from the new leader", on: model.pattern(hosts)) { host in
            plan.stage(
                UpgradePlan.keptCloned, "\(upgraded.dataDirectory) cloned from \(plan.leader)",
                command: MemberCloned(model: upgraded).command(after: directories))
            MemberCloned(model: upgraded).settled(host.name)
        }
    }

    /// The kept replica held out of the cluster while it streams on: Patroni paused (maintenance mode: it neither
    /// fails over nor stops PostgreSQL with itself), then stopped there.
    private var held: [Play] {
        guard let kept = plan.kept else { return [] }
        return [
            Play("patroni paused", on: plan.leader) { _ in
                plan.stage(
                    "paused", "patroni paused (maintenance mode)",
                    command: PatroniAPI(model, member: plan.leader).send(
                        "PATCH", "/config", json: #"{"pause": true}"#, timeout: 30))
            },
            Play("kept replica held", on: kept) { _ in
                let paused = Poll(
                    until: PatroniAPI(model, member: kept).shows("/patroni", #""pause": true"#), seconds: 60,
                    onTimeout: .fail("patroni on \(kept) did not see the pause within 60 s"))
                plan.stage(
                    "held", "patroni stopped, postgresql \(model.postgresVersion) streaming on",
                    command: "if systemctl is-active --quiet patroni; then \(paused.command); fi && "
                        + "systemctl disable --now patroni && { \(PostgresControl(model).running) || { echo "
                        + "\("postgresql on \(kept) stopped with patroni: it cannot be kept up to the leader's last WAL") "
                        + ">&2; false; }; }")
            },
        ]
    }

    /// The etcd key holding the stopped leader's last checkpoint, which the kept replica must have replayed (the
    /// keys' reset deletes it).
    private var checkpointKey: String { model.dcsPrefix + "keel-upgrade-checkpoint" }

    /// The stopped leader's last checkpoint (its shutdown checkpoint, the end of its WAL) put in etcd.
    private var lastCheckpointShared: ShellCommand {
        "lsn=$(\(lastCheckpoint(model))) && [ -n \"$lsn\" ] && \(Etcdctl(model, client: .patroni)("put \(checkpointKey) \"$lsn\"")) >/dev/null"
    }

    /// Prints the location of the last checkpoint in `release`'s control file.
    private func lastCheckpoint(_ release: ClusterModel) -> ShellCommand {
        "LC_ALL=C \(release.binDirectory + "/pg_controldata") \(release.dataDirectory) | sed -n \("s/^Latest checkpoint location: *//p")"
    }

    /// The kept replica stopped once it replayed the leader's shutdown checkpoint, and checked to end there: every
    /// write the old leader took is in its data directory.
    private var keptStopped: [Play] {
        guard let kept = plan.kept else { return [] }
        return [
            Play("kept replica stopped", on: kept) { _ in
                let replayed: ShellCommand =
                    "[ \"$(printf '%s\\n' \("SELECT pg_last_wal_replay_lsn() > :'lsn'") | runuser -u postgres -- psql "
                    + "-XAtq -v ON_ERROR_STOP=1 -v lsn=\"$lsn\" -p \(model.postgresPort) -d postgres -f -)\" = t ]"
                let caughtUp = Poll(
                    until: replayed, seconds: 120,
                    onTimeout: .fail(
                        "\(kept) did not replay the leader's last WAL within 120 s: it cannot be kept; "
                            + "keel upgrade --rollback starts the old cluster"))
                let lacking = ": it lacks writes and cannot be kept; keel upgrade --rollback starts the old cluster"
                plan.stage(
                    "kept", "stopped on postgresql \(model.postgresVersion) after the leader's last checkpoint",
                    command: "lsn=$(\(Etcdctl(model, client: .patroni).get(checkpointKey))) && case \"$lsn\" in "
                        + "''|*[!0-9A-F/]*) echo \("the leader's last checkpoint is not in etcd") >&2; false;; esac && "
                        + "if \(PostgresControl(model).running); then \(caughtUp.command) && \(PostgresControl(model).stopped); fi "
                        + "&& latest=$(\(lastCheckpoint(model))) && { [ \"$latest\" = \"$lsn\" ] || { echo \(kept + "'s last checkpoint") "
                        + "\"$latest\" \("is not the leader's last,") \"$lsn\"\(lacking) >&2; false; }; }")
            }
        ]
    }

    /// The cluster's keys in etcd deleted: the next Patroni to start writes its data directory's system
    /// identifier and leads.
    private var keysReset: ShellCommand {
        Etcdctl(model, client: .patroni)("del --prefix \(model.dcsPrefix)") + " >/dev/null"
    }

    /// The old cluster back as it was, before the new leader started: the leader's old data directory whole again
    /// (pg_upgrade --link renamed its `pg_control`), the new one removed, the configuration of the old release
    /// rendered, Patroni started on the leader, then on the replicas, whose data directories were never touched.
    /// A pause a kept replica needed is lifted first (``pauseLifted``).
    func rollback() -> [Play] {
        let leader = Play("old leader back", on: plan.leader) { host in
            plan.stage(
                "rolled-back", "\(model.dataDirectory) whole again, \(upgraded.dataDirectory) removed",
                command:
                    "\(Self.formerRunEnded) && \(newClusterNeverRan) && \(newClusterUndone) && rm -f \(Self.settingsFile)"
                    + (plan.kept == nil ? "" : " && \(pauseLifted)"))
            Service("patroni", state: .started, enabled: true)
            PatroniPlays.leading(model, host: host.name)
        }
        return [configuration(model), leader] + resumed + [
            Play("replicas back", on: model.pattern(replicas)) { host in
                Service("patroni", state: .started, enabled: true)
                MemberInService(model: model, host: host.name).steps
            },
            abandoned,
            PatroniPlays.inService(model),
        ]
    }

    /// The pause a kept replica needed lifted, while no Patroni runs (a paused Patroni starts no stopped
    /// PostgreSQL): from the cluster's configuration in etcd, and from the copy Patroni keeps of it in the old data
    /// directory (`patroni.dynamic.json`), which it reads when etcd has none (the keys reset).
    private var pauseLifted: ShellCommand {
        let config = model.dcsPrefix + "config"
        let etcdctl = Etcdctl(model, client: .patroni)
        let unpause = "import json, sys; c = json.load(sys.stdin); c.pop('pause', None); print(json.dumps(c))"
        let cache = model.dataDirectory + "/patroni.dynamic.json"
        return "config=$(\(etcdctl.get(config))) && { [ -z \"$config\" ] || printf '%s' \"$config\" | python3 -c "
            + "\(unpause) | \(etcdctl("put \(config)")) >/dev/null; } && { [ ! -e \(cache) ] || "
            + "\(PostgresControl.asPostgres("python3 -c \(unpause) < \(cache) > \(cache + ".new") && mv \(cache + ".new") \(cache)")); }"
    }

    /// The old release back from the kept replica, past the point of no return: the upgraded cluster stopped (what
    /// it took since is lost), the old release's configuration rendered, the cluster's keys reset, Patroni started
    /// on the kept replica (it leads, promoted), the other members cloned afresh from it on the old release (the
    /// old leader's data directory was the new one's), the repository turned back to the old release with a full
    /// backup.
    func rollbackFromKept() -> [Play] {
        guard let kept = plan.kept else { return rollback() }
        let others = model.databaseHosts.filter { $0 != kept }
        return [
            Play("postgresql \(upgraded.postgresVersion) stopped", on: model.pattern(others)) { _ in
                plan.stage(
                    "new-stopped", "patroni and postgresql \(upgraded.postgresVersion) stopped",
                    command: "systemctl disable --now patroni && \(PostgresControl(upgraded).stopped)")
            },
            configuration(model),
            Play("old release back from the kept replica", on: kept) { host in
                plan.stage(
                    "keys-reset-back", "the cluster's keys in etcd deleted, the pause lifted",
                    command: "\(keysReset) && \(pauseLifted)")
                plan.stage(
                    "restarted", "patroni started on PostgreSQL \(model.postgresVersion)",
                    command: "systemctl enable --now patroni")
                PatroniPlays.leading(model, host: host.name)
                WaitFor(
                    .command(
                        PatroniAPI(model, member: host.name).acceptsWrites, what: "the kept replica to take writes"),
                    timeout: .seconds(60))
            },
            Play("members cloned from the kept replica", on: model.pattern(others)) { host in
                plan.stage(
                    "recloned", "\(model.dataDirectory) cloned from \(kept), \(upgraded.dataDirectory) removed",
                    command: MemberCloned(model: model).command(
                        after:
                            "\(PostgresControl.asPostgres("rm -rf \(upgraded.dataDirectory) \(upgrading)")) && rm -f \(Self.settingsFile)"
                    ))
                MemberCloned(model: model).settled(host.name)
            },
        ] + backedUp(model, stage: "backed-up-back", on: kept) + [abandoned, PatroniPlays.inService(model)]
    }

    /// The upgrade recorded as rolled back on every host taking part.
    private var abandoned: Play {
        Play("upgrade rolled back", on: model.pattern(marked)) { _ in
            plan.stage(JournalRecord.abandoned, "recorded as rolled back", command: "true")
        }
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

    /// The repository turned to `release` (`stanza-upgrade`: after the upgrade, or back after a rollback from the
    /// kept replica), checked, and a full backup of it, on the repository host or else on `member`.
    private func backedUp(_ release: ClusterModel, stage: String, on member: String) -> [Play] {
        guard let backups = release.backups else { return [] }
        let pgbackrest = PgBackRest(backups)
        return [
            Play("backups of postgresql \(release.postgresVersion)", on: backups.repositoryHost ?? member) { _ in
                plan.stage(
                    stage, "pgbackrest stanza-upgrade, check, then a full backup",
                    command: "\(pgbackrest("stanza-upgrade")) >/dev/null && \(pgbackrest("check")) && "
                        + "\(pgbackrest("--type=full backup"))",
                    timeout: release.limits.dataCopyTimeout)
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
        let format = UpgradeSettings.names.map { $0 + "=%s\\n" }.joined()
        let values = UpgradeSettings.names.map { "\"$\($0)\"" }.joined(separator: " ")
        return
            "\(UpgradeSettings.read(model)) && mkdir -p \(JournalRecord.directory) && printf \(format) \(raw: values) > "
            + "\(Self.settingsFile + ".new") && mv \(Self.settingsFile + ".new") \(Self.settingsFile)"
    }

    /// The settings of ``recordedSettings`` read back into shell variables of their names.
    private var settings: ShellCommand {
        UpgradeSettings.names.map { name -> ShellCommand in
            "\(raw: name)=$(sed -n \("s/^\(name)=//p") \(Self.settingsFile))"
        }.joined(separator: " && ")
    }

    /// The new release's directory (as a deploy makes it) and its data directory, postgres's own.
    private var directories: ShellCommand {
        let folders: ShellCommand =
            "\(ClusterModel.postgresHome + "/\(upgraded.postgresVersion)") \(upgraded.dataDirectory)"
        return PostgresControl.asPostgres("mkdir -p -m 700 \(folders) && chmod 700 \(folders)")
    }

    /// Fails, removing nothing, when the new cluster ever ran beyond pg_upgrade: Patroni started it (it keeps the
    /// configuration pg_upgrade left as `postgresql.base.conf`, and its own in `patroni.dynamic.json`), or it runs or
    /// ran without a clean shutdown. Past that, the files `--link` shares hold its writes: the old cluster is lost.
    private var newClusterNeverRan: ShellCommand {
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
    private var newClusterUndone: ShellCommand {
        PostgresControl.asPostgres(
            "{ [ ! -e \(oldControl + ".old") ] || mv \(oldControl + ".old") \(oldControl); } && "
                + "rm -rf \(upgraded.dataDirectory) \(upgrading)")
    }

    /// initdb of the new cluster, like the running one.
    private var initialized: ShellCommand {
        "\(directories) && \(UpgradeSettings.initdb(upgraded.binDirectory, into: "\(upgraded.dataDirectory)"))"
    }

    /// pg_upgrade --link from the stopped old cluster to the new; its output kept in a log, shown when it fails.
    private var pgUpgrade: ShellCommand {
        let log = "/var/log/postgresql/keel-pg_upgrade.log"
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
    private var linked: ShellCommand {
        "\(Self.formerRunEnded) && \(settings) && if [ -e \(upgrading) ]; then \(newClusterUndone); fi "
            + "&& if [ ! -e \(oldControl + ".old") ]; then { [ -e \(upgraded.dataDirectory + "/PG_VERSION") ] || "
            + "{ \(initialized); }; } && \(PostgresControl.asPostgres("touch \(upgrading)")) && \(pgUpgrade) && "
            + "\(PostgresControl.asPostgres("rm -f \(upgrading)")); fi"
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
