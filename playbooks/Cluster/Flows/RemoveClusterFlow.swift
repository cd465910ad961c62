import Keel

/// Removes the cluster from its hosts, once its name is typed: the balancers give the VIP up, Patroni (and with it
/// PostgreSQL) and PgBouncer stop for good, the cluster's keys leave etcd (its own prefix only), then its data,
/// configuration and secrets are deleted. etcd goes too unless another cluster uses it; backups stay unless asked
/// otherwise (and then pgBackRest deletes its stanza); packages stay unless asked. Every step is idempotent: a second
/// run finds nothing left, and a run killed at any step finishes when run again.
public struct RemoveClusterFlow: ClusterFlow, Sendable {
    public static let name = "remove-cluster"
    public static let summary =
        "Remove the cluster from its hosts (its name typed confirms it); backups are kept unless --delete-backups."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    public let survey: ClusterRemovalSurvey
    public let deleteBackups: Bool
    public let purgePackages: Bool
    /// etcd goes too (the survey decided).
    var removeEtcd: Bool { survey.removesEtcd }

    public init(survey: ClusterRemovalSurvey, deleteBackups: Bool, purgePackages: Bool) {
        self.survey = survey
        self.deleteBackups = deleteBackups
        self.purgePackages = purgePackages
    }

    /// The packages `--purge-packages` removes from `host`; pgBackRest stays on a repository that keeps backups.
    func packages(on host: String, _ model: ClusterModel) -> [String] {
        var packages: [String] = []
        if model.databaseHosts.contains(host) {
            packages += [PostgresPackages.server(model), PostgresPackages.client(model)]
            if model.pgbouncer != nil { packages += PgBouncerRole.packages }
        }
        if removeEtcd && model.etcdHosts.contains(host) { packages += EtcdRole.packages }
        if model.balancerHosts.contains(host) { packages += HAProxyRole.packages + KeepalivedRole.packages }
        if model.balancerPoolers.contains(host) { packages += PgBouncerRole.packages }
        if let backups = model.backups,
            model.databaseHosts.contains(host) || (deleteBackups && host == backups.repositoryHost)
        {
            packages += PgBackRestDatabaseRole.packages
        }
        return packages
    }

    /// What the run will do, for the operator to confirm.
    public var confirmations: [FlowConfirmation] { [.clusterName] + (deleteBackups ? [.stanzaName] : []) }

    public func targetsRemoved(_ model: ClusterModel) -> [String]? { model.allHosts }

    /// With `--purge-packages`, every host's packages settled (apt refuses an interrupted dpkg); a half-added
    /// member is otherwise removed like any other.
    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        purgePackages ? HostReadiness(hosts: model.allHosts, members: []) : nil
    }

    public func plan(_ model: ClusterModel) -> String? {
        var lines = ["remove-cluster will, on cluster \(model.name):"]
        for host in model.allHosts {
            var services: [String] = []
            if model.balancerHosts.contains(host) { services += ["keepalived (the VIP is released)", "haproxy"] }
            if model.balancerPoolers.contains(host) { services.append("pgbouncer") }
            if model.databaseHosts.contains(host) {
                services.append("patroni and PostgreSQL")
                if model.pgbouncer != nil { services.append("pgbouncer") }
            }
            if removeEtcd && model.etcdHosts.contains(host) { services.append("etcd") }
            lines.append("  \(host): stop and disable \(services.joined(separator: ", "))")
            if let reason = survey.unread[host] {
                lines.append("    (could not be read: \(reason))")
            }
            if let system = survey.systemIDs[host] { lines.append("    its PostgreSQL's system identifier: \(system)") }
            for entry in survey.paths[host] ?? [] { lines.append("    DELETE \(entry.path) (\(entry.size))") }
            if purgePackages {
                lines.append(
                    "    purge packages "
                        + packages(on: host, model).joined(separator: " "))
            }
        }
        lines.append("  etcd: delete the cluster's keys (prefix \(model.dcsPrefix))")
        if survey.etcdRemovalBegun {
            lines.append("  etcd itself is removed: an earlier run of this removal began removing it")
        } else if removeEtcd && !survey.otherClusters.isEmpty {
            lines.append(
                "  etcd itself is removed (--remove-etcd), with the keys of \(survey.otherClusters.joined(separator: ", "))"
            )
        } else if removeEtcd {
            lines.append("  etcd itself is removed: no other cluster keeps keys in it")
        } else {
            lines.append(
                "  etcd stays: it holds the keys of \(survey.otherClusters.joined(separator: ", ")) (--remove-etcd removes it)"
            )
        }
        if let backups = model.backups {
            let place = backups.repositoryHost.map { "on \($0) in \(backups.path)" } ?? "in \(backups.path)"
            let count = survey.backups.map { "\($0.backups.count) backup(s)" } ?? "backups (unread)"
            let wal = survey.archiveSize.map { ", \($0) of WAL" } ?? ""
            lines.append(
                deleteBackups
                    ? "  backups: DELETE stanza \(backups.stanza) \(place): \(count)\(wal) (pgbackrest stop, stanza-delete)"
                    : "  backups: KEPT, stanza \(backups.stanza) \(place): \(count)\(wal); their timers stop "
                        + "(--delete-backups deletes them)")
        }
        if model.monitoring != nil { lines.append("  exporters: stopped and purged on every host") }
        if !purgePackages { lines.append("  packages stay installed (--purge-packages removes them)") }
        return lines.joined(separator: "\n") + "\n"
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            BalancerPlays.stopped(model)
            PatroniPlays.stopped(model)
            PgBackRestPlays.retired(model, deletingBackups: deleteBackups)
            PatroniPlays.keysDeleted(model)
            if removeEtcd { EtcdPlays.retired(model) }
            MonitoringPlays.retired(model, on: model.allHosts)
            HostPlays.filesRemoved(model) { host in
                ClusterRemovalSurvey.paths(on: host, model, removingEtcd: removeEtcd, deletingBackups: deleteBackups)
                    + (deleteBackups ? model.backups.map(PgBackRestTimers.footprint) ?? [] : [])
            }
            if purgePackages { HostPlays.packagesPurged(model) { packages(on: $0, model) } }
        }
    }
}
