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
    /// pg_upgrade's output, written as postgres in a folder postgres may add to (`/var/log/postgresql`).
    static let pgUpgradeLog = "/var/log/postgresql/keel-pg_upgrade.log"

    var replicas: [String] { model.databaseHosts.filter { $0 != plan.leader } }
    /// The hosts taking part: the members and the repository host.
    var marked: [String] { model.databaseAndRepositoryHosts }
    var poolers: String? { model.balancerPoolers.isEmpty ? nil : model.pattern(model.balancerPoolers) }
    /// Beside the new data directory while pg_upgrade runs: a run killed there makes the new cluster afresh.
    var upgrading: String { upgraded.dataDirectory + ".upgrading" }
    var oldControl: String { model.dataDirectory + "/global/pg_control" }

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
    var backupsReadNewRelease: ShellCommand {
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
    var finished: [Play] {
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
    var serving: [String] { model.databaseHosts.filter { $0 != plan.kept } }
    /// The replicas the upgrade stops and clones afresh: all but the kept one.
    var cloned: [String] { replicas.filter { $0 != plan.kept } }

    /// `hosts`, replicas, cloned from the new leader into the new release's data directory (their old ones kept).
    func clonedFromLeader(_ hosts: [String]) -> Play {
        Play("replicas cloned from the new leader", on: model.pattern(hosts)) { host in
            plan.stage(
                UpgradePlan.keptCloned, "\(upgraded.dataDirectory) cloned from \(plan.leader)",
                command: MemberCloned(model: upgraded).command(after: directories))
            MemberCloned(model: upgraded).settled(host.name)
        }
    }

    /// The kept replica held out of the cluster while it streams on: Patroni paused (maintenance mode: it neither
    /// fails over nor stops PostgreSQL with itself), then stopped there.
    var held: [Play] {
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
    var checkpointKey: String { model.dcsPrefix + "keel-upgrade-checkpoint" }

    /// The stopped leader's last checkpoint (its shutdown checkpoint, the end of its WAL) put in etcd.
    var lastCheckpointShared: ShellCommand {
        "lsn=$(\(lastCheckpoint(model))) && [ -n \"$lsn\" ] && \(Etcdctl(model, client: .patroni)("put \(checkpointKey) \"$lsn\"")) >/dev/null"
    }

    /// Prints the location of the last checkpoint in `release`'s control file.
    func lastCheckpoint(_ release: ClusterModel) -> ShellCommand {
        "LC_ALL=C \(release.binDirectory + "/pg_controldata") \(release.dataDirectory) | sed -n \("s/^Latest checkpoint location: *//p")"
    }

    /// The kept replica stopped once it replayed the leader's shutdown checkpoint, and checked to end there: every
    /// write the old leader took is in its data directory.
    var keptStopped: [Play] {
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
    var keysReset: ShellCommand {
        Etcdctl(model, client: .patroni)("del --prefix \(model.dcsPrefix)") + " >/dev/null"
    }

    /// The balancers' PgBouncers resumed once HAProxy routes to the leader again (none without them).
    var resumed: [Play] {
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
    func configuration(_ release: ClusterModel) -> Play {
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
    func backedUp(_ release: ClusterModel, stage: String, on member: String) -> [Play] {
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

}
