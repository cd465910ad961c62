import Foundation
import Keel

/// The text `keel upgrade` shows before it changes anything, for each mode.
extension UpgradeFlow {
    public func plan(_ model: ClusterModel) -> String? {
        let (from, to, leader) = (plan.from, plan.to, plan.leader)
        let replicas = model.databaseHosts.filter { $0 != leader }
        let pools = model.balancerPoolers.isEmpty ? nil : model.balancerPoolers.joined(separator: ", ")
        switch mode {
        case .cleanup:
            return [
                "upgrade --cleanup will, on cluster \(model.name) (upgraded from PostgreSQL \(from) to \(to), "
                    + "\(plan.planned.formatted(.iso8601))):",
                "  on \(model.databaseHosts.joined(separator: ", ")): \(retired?.dataDirectory ?? "") deleted (the \(from) "
                    + "data directory; on \(leader) its files are \(to)'s too, which keeps them), "
                    + "postgresql-\(from) and postgresql-client-\(from) removed (apt-get remove)",
                "  the repository's backups of \(from) stay until their retention expires them",
            ].joined(separator: "\n") + "\n\n"
        case .finish:
            let kept = plan.kept ?? ""
            return [
                "upgrade --finish will, on cluster \(model.name) (upgraded from PostgreSQL \(from) to \(to), "
                    + "\(plan.planned.formatted(.iso8601))):",
                "  on \(kept) (kept on \(from)): cloned afresh from the leader into \(upgraded.dataDirectory) "
                    + "(its \(from) data directory kept until --cleanup)",
                "  the upgrade recorded as finished: after this, going back to \(from) means restoring a backup",
            ].joined(separator: "\n") + "\n\n"
        case .rollbackFromKept:
            let kept = plan.kept ?? ""
            let others = model.databaseHosts.filter { $0 != kept }.joined(separator: ", ")
            return [
                "upgrade will roll back the upgrade of cluster \(model.name) to \(to), past its point of no return, "
                    + "from \(kept), kept on PostgreSQL \(from):",
                "  EVERY WRITE MADE ON POSTGRESQL \(to) IS LOST: \(kept) holds the cluster as the old leader stopped",
                "  on \(others): patroni and postgresql \(to) stopped; patroni.yml and pgbackrest.conf for \(from) on "
                    + "every host; the cluster's keys in etcd reset",
                "  patroni started on \(kept): it leads, on PostgreSQL \(from)",
                "  \(others) cloned afresh from \(kept) into \(model.dataDirectory) (\(upgraded.dataDirectory) removed)",
                model.backups == nil
                    ? "  no backups (pgbackrest_install is false)"
                    : "  pgbackrest stanza-upgrade back to \(from), a check and a full backup",
            ].joined(separator: "\n") + "\n\n"
        case .rollback(let done):
            return [
                "upgrade will roll back the unfinished upgrade of cluster \(model.name) to \(to) (done on \(leader): "
                    + "\(done.isEmpty ? "nothing yet" : done.joined(separator: ", "))):",
                "  on \(leader): \(model.dataDirectory) whole again (its pg_control back), \(upgraded.dataDirectory) "
                    + "removed; patroni.yml and pgbackrest.conf for \(from) on every host",
                "  patroni started on \(leader) (the leader, on PostgreSQL \(from)), then on "
                    + "\(replicas.joined(separator: ", ")) (their data directories were not touched)",
            ].joined(separator: "\n") + "\n\n"
        case .upgrade, .resume:
            let extensions = self.extensions.isEmpty ? "" : " (\(self.extensions.joined(separator: ", ")))"
            let replicas = replicas.filter { $0 != plan.kept }
            var lines = [
                "upgrade will, on cluster \(model.name) (PostgreSQL \(from) → \(to)):",
                "  first, the running cluster untouched:",
                "    on \(model.databaseHosts.joined(separator: ", ")): \(PostgresPackages.server(upgraded)) and its "
                    + "client installed beside \(from); every extension\(extensions) available in \(to)",
                "    on \(leader) (the leader): a new cluster initialized in \(upgraded.dataDirectory) like the "
                    + "running one; pg_upgrade --check against a schema-only copy of it (scratch clusters on a spare port; "
                    + "under --check too, once postgresql-\(to) is installed)",
                "  then the upgrade:",
                "    on \(leader): no client transaction older than \(model.limits.maximumTransactionSeconds) s "
                    + "(max_transaction_sec), waited for up to \(SwitchedOver.longTransactionWait) s (the stop would end it)",
            ]
            if let kept = plan.kept {
                lines += [
                    "    patroni paused (maintenance mode), then stopped on \(kept), kept: its postgresql \(from) streams "
                        + "until the leader stops, then stops once it replayed the leader's last checkpoint (checked)",
                    "    until keel upgrade --finish, the cluster runs on \(model.databaseHosts.count - 1) members, "
                        + "\(kept) stopped on \(from) with every write made before the upgrade: keel upgrade --rollback "
                        + "starts \(from) from it, even past the point of no return, LOSING EVERY WRITE MADE ON \(to)",
                ]
            }
            lines += [
                "    patroni and postgresql stopped on \(replicas.joined(separator: ", ")) (reads through the "
                    + "replicas fail until they are back)"
            ]
            if let pools {
                lines.append(
                    "    PgBouncer paused on \(pools): clients wait (resumed after \(UpgradePlays.pauseBound) s at "
                        + "most, whatever happens)")
            }
            lines += [
                "    on \(leader): a CHECKPOINT, patroni and postgresql stopped (writes stop here), pg_upgrade --link "
                    + "into \(upgraded.dataDirectory) (the data files shared, not copied)",
                "    patroni.yml and pgbackrest.conf for \(to) on every host; the cluster's keys in etcd reset",
                "    patroni started on \(leader) on PostgreSQL \(to) — THE POINT OF NO RETURN: until here, keel upgrade "
                    + "--rollback brings \(from) back as it was (a run that fails stops and says so); after it, going back means "
                    + (plan.kept.map { "starting \(from) from \($0), the kept replica, or " } ?? "")
                    + "restoring the last backup of \(from) (the repository keeps them)",
            ]
            if let pools { lines.append("    PgBouncer resumed on \(pools) (writes go on)") }
            lines += [
                "    \(replicas.joined(separator: ", ")) cloned afresh from \(leader) into \(upgraded.dataDirectory) "
                    + "(the whole database copied over the network)",
                model.backups == nil
                    ? "    no backups to upgrade (pgbackrest_install is false)"
                    : "    pgbackrest stanza-upgrade, a check and a full backup of \(to)",
                "    statistics rebuilt on \(leader) (vacuumdb --all --analyze-in-stages); the cluster's parameters "
                    + "applied",
                "  kept: the \(from) data directories (\(model.dataDirectory)) and packages on every member",
                plan.kept.map {
                    "  then keel upgrade --finish clones \($0) on \(to), or --rollback goes back to \(from) from it"
                }
                    ?? "  then set postgresql_version: \(to) in the inventory: keel deploy changes nothing",
            ]
            if plan.kept != nil {
                lines.append(
                    "  and, once finished, set postgresql_version: \(to) in the inventory: keel deploy changes nothing")
            }
            if case .resume(let done) = mode {
                lines.append(
                    "It was begun (\(plan.id)): resuming after \(done.isEmpty ? "nothing yet" : done.joined(separator: ", ")) "
                        + "on \(leader).")
            }
            return lines.joined(separator: "\n") + "\n\n"
        }
    }
}
