import Keel

/// The plays of `keel update`.
enum UpdatePlays {
    /// pgBackRest's `updates` (by host) installed on every host at once: it talks only to its own version.
    static func backupUpdated(_ model: ClusterModel, _ updates: [String: PackageUpdate]) -> Play {
        Play("pgbackrest updated", on: model.pattern(updates.keys.sorted()), tags: ["update"]) { host in
            if let update = updates[host.name] { PackagesUpdated(updates: [update], stopping: nil) }
        }
    }

    /// Whether `planned` changes what a member serves clients with (PostgreSQL, Patroni's libraries, PgBouncer): the
    /// member is then drained first, and the leader hands its role over before.
    static func interruptsClients(_ model: ClusterModel, _ planned: UpdateSurvey.Host) -> Bool {
        changes(planned, .postgres, model) || changes(planned, .pgbouncer, model)
    }

    private static func changes(_ planned: UpdateSurvey.Host, _ component: UpdatedComponent, _ model: ClusterModel)
        -> Bool
    {
        !Set(planned.updates.map(\.name)).isDisjoint(with: component.packages(on: planned.name, model))
    }

    /// `host` updated and back in service: taken out of service as far as its new packages need (a member drained,
    /// and stopped after a CHECKPOINT for a new PostgreSQL or Patroni library; a balancer's VIP moved away by
    /// stopping keepalived for a new keepalived or PgBouncer, a new HAProxy reloaded in place; etcd's quorum checked
    /// first), its packages updated, its services started, and the run
    /// goes on once it serves again. The host's journal holds run `id` of the update until it serves again: a rerun
    /// after a killed update brings it back first, even when its packages are already current.
    static func updated(_ model: ClusterModel, host planned: UpdateSurvey.Host, run id: String) -> Play {
        let name = planned.name
        let member = model.databaseHosts.contains(name)
        let balancer = model.haproxy != nil && model.balancerHosts.contains(name)
        let etcd = model.etcdHosts.contains(name)
        let allEtcd = Etcdctl(model, members: model.etcdHosts.map(model.address))
        let drained = member && interruptsClients(model, planned)
        var stops: [String] = []
        if member && changes(planned, .postgres, model) {
            stops.append(
                "if pg_isready -q -h /var/run/postgresql -p \(model.postgresPort); then "
                    + "\(model.postgres.run("CHECKPOINT")) >/dev/null; fi")
            stops.append("systemctl stop patroni")
        }
        // A new keepalived, or a new PgBouncer in front of the leader, needs a restart, for which the VIP moves
        // away; a new HAProxy alone does not: Debian's upgrade reloads it, and a reload starts the new binary
        // without closing a connection (its servers' state saved first for the new process to read).
        let vipMoves =
            balancer && model.vip != nil
            && !Set(planned.updates.map(\.name)).isDisjoint(
                with: KeepalivedRole.packages + (model.balancerPoolers.contains(name) ? PgBouncerRole.packages : []))
        if vipMoves {
            stops.append("systemctl stop keepalived")
        } else if balancer && changes(planned, .balancers, model) {
            stops.append(HAProxyRole.serverStateSaved.text)
        }
        let stopping = stops.isEmpty ? nil : stops.joined(separator: " && ")
        return Play("update \(name)", on: name, anyErrorsFatal: true, tags: ["update"]) { host in
            // Every etcd member healthy: this one stopping leaves a quorum.
            if etcd { WaitFor(.command(allEtcd.health, what: "every etcd member healthy"), timeout: .seconds(120)) }
            JournalBegun(
                flow: UpdateJournal.flow, id: id,
                plan: JournalRecord.encode(["updates": planned.updates.map(\.description)]),
                replacing: .any)
            if drained { try MemberDrain.out(model, host: host) }
            PackagesUpdated(updates: planned.updates, stopping: stopping)
            if etcd {
                Service("etcd", state: .started, enabled: true)
                WaitFor(.command(allEtcd.health, what: "every etcd member healthy"), timeout: .seconds(120))
            }
            if member {
                Service("patroni", state: .started, enabled: true)
                MemberInService(model: model, host: name).steps
                WaitFor(
                    .command(PatroniAPI(model, member: name).caughtUp(model), what: "streaming, caught up"),
                    timeout: .seconds(300))
                try MemberDrain.back(model, host: host)
                if model.pgbouncer != nil { Service("pgbouncer", state: .started, enabled: true) }
            }
            if balancer {
                Service("haproxy", state: .started, enabled: true)
                // Debian's upgrade reloaded it; one that still runs the replaced binary is reloaded here.
                Command(
                    HAProxyRole.reload.command, what: "HAProxy running its installed binary",
                    unless: HAProxyRole.runsInstalledBinary)
                // A restarted HAProxy counts its servers down until checked: the VIP comes back once it routes.
                HAProxyRole.routes(to: "master")
                if model.databaseHosts.count > 1 { HAProxyRole.routes(to: "replicas") }
                if model.balancerPoolers.contains(name) { Service("pgbouncer", state: .started, enabled: true) }
                if model.vip != nil { Service("keepalived", state: .started, enabled: true) }
            }
            JournalStage.finished(flow: UpdateJournal.flow, id: id, summary: "recorded as back in service")
        }
    }
}
