import Foundation
import Keel

/// `keel upgrade --rollback`: the old release back, before the new leader started or, past it, from the kept replica.
extension UpgradePlays {
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
    var pauseLifted: ShellCommand {
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
    var abandoned: Play {
        Play("upgrade rolled back", on: model.pattern(marked)) { _ in
            plan.stage(JournalRecord.abandoned, "recorded as rolled back", command: "true")
        }
    }
}
