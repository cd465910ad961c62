import Keel

/// The plays of the Patroni tier: members installed and configured, started in the order a cluster needs, its
/// dynamic configuration converged, and restarts one member at a time.
enum PatroniPlays {
    /// PostgreSQL and Patroni installed and configured on `hosts` (every database host by default); replacing a
    /// running older Patroni goes one member at a time.
    static func members(_ model: ClusterModel, wheel: [UInt8], on hosts: [String]? = nil) -> Play {
        Play(
            "postgresql and patroni", on: hosts.map(model.pattern) ?? "postgres_cluster",
            serial: model.patroni.upgrade ? 1 : nil,
            anyErrorsFatal: model.patroni.upgrade, tags: ["postgresql", "patroni"]
        ) { host in
            try PatroniNodeRole(host: host, model: model, wheel: wheel).steps
        }
    }

    /// Running members let new hosts in (or no longer let leaving ones in): patroni.yml with the pg_hba lines
    /// of the members and the balancers' PgBouncers, and etcd's endpoints, which Patroni applies on a reload
    /// (PostgreSQL reloads too; nothing restarts).
    static func access(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("patroni access", on: model.pattern(hosts), tags: ["patroni"]) { host in
            try PatroniNodeRole(host: host, model: model, wheel: []).configuration
            FlushHandlers()
            // Patroni applies a reload on its next cycle: the run goes on once pg_hba.conf has the new lines.
            WaitFor(
                .command(hbaApplied(model), what: "pg_hba.conf to hold the cluster's lines"),
                timeout: .seconds(3 * model.patroni.loopWait + 10))
        }
    }

    /// Succeeds when the member's pg_hba.conf holds the model's lines (those of patroni.yml's `pg_hba`), in
    /// order (Patroni writes them below a comment).
    static func hbaApplied(_ model: ClusterModel) -> ShellCommand {
        let wanted = model.memberHBA.map { line -> ShellCommand in "\(line)" }.joined(separator: " ")
        return
            "[ \"$(printf '%s\\n' \(wanted))\" = \"$(grep -v '^#' \(model.dataDirectory + "/pg_hba.conf") | sed '/^$/d')\" ]"
    }

    /// New members of a running cluster: each proves it can log in for replication to every member before its
    /// Patroni starts, then is cloned and streams from the leader, on its timeline and caught up.
    static func joining(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("patroni members joining", on: model.pattern(hosts), tags: ["patroni"]) { host in
            ReplicationLogin(model: model, host: host.name)
            Service("patroni", state: .started, enabled: true)
            MemberInService(model: model, host: host.name).steps
            WaitFor(
                .command(PatroniAPI(model, member: host.name).caughtUp(model), what: "streaming, caught up"),
                timeout: model.limits.dataCopyTimeout)
        }
    }

    /// The `[master]` host starts first, so that it bootstraps the cluster; on later runs any leader will do.
    static func primary(_ model: ClusterModel) -> Play {
        Play("patroni primary", on: model.primaryHost ?? "master", tags: ["patroni"]) { host in
            Service("patroni", state: .started, enabled: true)
            leading(model, host: host.name)
        }
    }

    /// Waits until `host` leads and the cluster's dynamic configuration is in etcd: a leader that took over a data
    /// directory (not bootstrapped by initdb) writes it on its next cycle, and the next play must find it there,
    /// not mistake the cluster for a new one.
    @StepBuilder
    static func leading(_ model: ClusterModel, host: String) -> [Step] {
        WaitFor(
            .command(
                PatroniAPI(model, member: host).shows("/cluster", #""role": "leader""#), what: "this member to lead"),
            timeout: .seconds(180))
        WaitFor(
            .command(
                PatroniAPI(model, member: host).shows("/config", #""loop_wait""#),
                what: "the cluster's configuration in etcd"), timeout: .seconds(60))
    }

    /// Parameters live in etcd for the whole cluster (and in patroni.yml for a member alone); a change that needs a
    /// restart restarts the members one at a time, the leader last, once Patroni has flagged every such restart.
    /// On a new cluster only the leader runs yet, so replicas are cloned with the final parameters and only the
    /// leader restarts.
    /// `hosts`: the members running (all by default).
    static func dynamicConfig(_ model: ClusterModel, on hosts: [String]? = nil) -> Play {
        Play("cluster configuration", on: model.pattern(hosts ?? model.databaseHosts), tags: ["patroni", "postgresql"])
        {
            host in
            PatroniDynamicConfig(model: model, host: host.name).runOnce()
            UnflaggedRestart(model: model, host: host.name)
            PendingRestart(model: model, host: host.name).runOnce()
        }
    }

    /// The replicas, started once the cluster exists, each streaming before the play ends.
    static func replicas(_ model: ClusterModel) -> Play {
        Play("patroni replicas", on: model.pattern(model.replicaHosts), tags: ["patroni"]) { host in
            // A replica started before the cluster is initialized would bootstrap a new, empty cluster of its own
            // (for example when the [master] host failed earlier in this run).
            WaitFor(
                .command(
                    Etcdctl(model, client: .patroni).get(model.dcsPrefix + "initialize") + " | grep -q .",
                    what: "the cluster initialized in etcd"),
                timeout: .seconds(30))
            Service("patroni", state: .started, enabled: true)
            MemberInService(model: model, host: host.name).steps
        }
    }

    /// Members whose Patroni must read a changed unit or password file restart one at a time.
    static func rollingRestart(_ model: ClusterModel) -> Play {
        Play(
            "patroni restarts", on: model.pattern(model.databaseHosts), serial: 1, anyErrorsFatal: true,
            tags: ["patroni"]
        ) { host in
            PatroniRestarts.changedFiles(model, host: host.name).due
        }
    }

    /// Every member in service and, with `synchronous_mode`, a synchronous standby chosen: without one Patroni
    /// would promote no one if the leader were lost, so the run ends only once the cluster could fail over.
    static func inService(_ model: ClusterModel, on hosts: [String]? = nil) -> Play {
        Play(
            "members in service", on: model.pattern(hosts ?? model.databaseHosts),
            tags: ["postgresql", "patroni", "pgbouncer", "pgbackrest"]
        ) { host in
            // Patroni restarts a replica's WAL receiver as it creates slots and picks the sync standby.
            MemberInService(model: model, host: host.name).steps
            if model.patroni.synchronousMode && model.databaseHosts.count > 1 {
                WaitFor(
                    .command(
                        PatroniAPI(model, member: host.name).shows("/cluster", #""role": "sync_standby""#),
                        what: "a synchronous standby"),
                    timeout: .seconds(120)
                )
                .runOnce()
            }
        }
    }

    /// Patroni (and with it PostgreSQL) and PgBouncer stopped for good on the members `leaving` (remove-node), or
    /// on every member with Debian's own instance too, which the deploy kept stopped (remove-cluster).
    static func stopped(_ model: ClusterModel, leaving: [String]? = nil) -> Play {
        Play("patroni stopped", on: model.pattern(leaving ?? model.databaseHosts), tags: ["patroni"]) { _ in
            Service("patroni", state: .stopped, enabled: false)
            if model.pgbouncer != nil { Service("pgbouncer", state: .stopped, enabled: false) }
            if leaving == nil { Service("postgresql", state: .stopped, enabled: false) }
        }
    }

    /// The remaining members forget the members `leaving`: their keys in etcd, then their replication slots, one
    /// member at a time.
    static func forgotten(_ model: ClusterModel, leaving: [String]) -> [Play] {
        let remaining = model.pattern(leaving.isEmpty ? [] : model.without(leaving).databaseHosts)
        return [
            Play("members forgotten", on: remaining) { _ in
                for member in leaving { MemberForgotten(model: model, member: member) }
            },
            Play("member slots dropped", on: remaining, serial: 1) { _ in
                for member in leaving { MemberSlotDropped(model: model, member: member) }
            },
        ]
    }

    /// The cluster's keys deleted from etcd, its own prefix only (remove-cluster).
    static func keysDeleted(_ model: ClusterModel) -> Play {
        Play("cluster keys deleted from etcd", on: model.etcdHosts[0]) { _ in
            ClusterKeysDeleted(model: model)
        }
    }

    /// The leader's role handed from `leader` to `candidate` (or the replica Patroni picks) (``SwitchedOver``), run
    /// on the leader: checks and a CHECKPOINT, then the hand-over itself with the balancers' PgBouncers paused
    /// (their clients wait instead of failing), then the wait until the former leader streams from the new one.
    static func switchover(_ model: ClusterModel, from leader: String, to candidate: String?) -> [Play] {
        let poolers = model.balancerPoolers.isEmpty ? nil : model.pattern(model.balancerPoolers)
        let prepared = SwitchedOver(model: model, leader: leader, candidate: candidate, stage: .prepared)
        let promoted = SwitchedOver(model: model, leader: leader, candidate: candidate, stage: .promoted)
        return [Play("switchover checks", on: leader) { _ in prepared }]
            + (poolers.map { [Play("pgbouncer paused", on: $0) { _ in PoolersPaused(leader: leader) }] } ?? [])
            + [Play("switchover", on: leader) { _ in promoted }]
            + (poolers.map { [Play("pgbouncer resumed", on: $0) { _ in PoolersResumed(leader: .other(than: leader)) }] }
                ?? [])
            + [
                Play("former leader streaming", on: leader) { _ in
                    WaitFor(
                        .command(
                            PatroniAPI(model, member: leader).caughtUp(model),
                            what: "\(leader) to stream from the new leader, caught up"),
                        timeout: .seconds(120))
                }
            ]
    }
}

/// Waits until the member is the primary or a replica streaming WAL from it (running as a replica is not enough):
/// a new replica first copies the whole database, so the wait is `keel_data_copy_timeout` long.
struct MemberInService: Role {
    let model: ClusterModel
    let host: String

    var steps: [Step] {
        WaitFor(
            .command(PatroniAPI(model, member: host).inService, what: "in service (primary, or streaming)"),
            timeout: model.limits.dataCopyTimeout)
    }
}
