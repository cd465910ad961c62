import Keel

/// The model's cross-checks, made once it is read (``load(from:secrets:)``): settings that contradict each other.
extension ClusterModel {
    func check(_ reader: VariableReader, inventory: Inventory) throws(InventoryError) {
        // pgBackRest archives: an archive_command of one's own would be silently replaced; the reference's
        // placeholder (`cd .`) is what its own pgBackRest role replaces too.
        if let backups, let own = parameters.first(where: { $0.option == "archive_command" }),
            ![JSONValue.string("cd ."), .string(backups.archiveCommand)].contains(own.value)
        {
            throw InventoryError(
                "postgresql_parameters sets archive_command, which is pgBackRest's when pgbackrest_install is true",
                at: reader.origin(.postgresqlParameters),
                hint: "remove it: Keel archives with \(backups.archiveCommand)")
        }
        if patroni.synchronousMode, patroni.synchronousNodeCount > synchronousCandidates {
            let origin = reader.origin(.synchronousNodeCount) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "synchronous_node_count is \(patroni.synchronousNodeCount) but the cluster has \(synchronousCandidates) replica(s)"
                    + (synchronousCandidates < replicaHosts.count ? " that may be synchronous (not nosync=true)" : ""),
                at: origin,
                hint: "lower it to at most \(synchronousCandidates), or add replicas")
        }
        if let primaryHost, tag("nofailover", of: primaryHost) == .bool(true) {
            throw InventoryError(
                "the [master] host \(primaryHost) has nofailover=true in its patroni_tags, but it starts the cluster as its leader",
                at: inventory.variables(for: primaryHost)[ClusterVariable.patroniTags.rawValue]?.origin
                    ?? SourceLocation(file: inventory.path, line: 1),
                hint: "put a host that may lead under [master]")
        }
        for balancer in balancerHosts {
            for (key, value) in hostFlags[balancer]?.balancerTags ?? []
            where !databaseHosts.contains(where: { tag(key, of: $0)?.text == value }) {
                throw InventoryError(
                    "balancer_tags of \(balancer) ask for \(key)=\(value), which no member's patroni_tags has: "
                        + "its replica ports would route nowhere",
                    at: inventory.variables(for: balancer)[ClusterVariable.balancerTags.rawValue]?.origin
                        ?? SourceLocation(file: inventory.path, line: 1),
                    hint: "add \(key)=\(value) to the patroni_tags of the replicas it should reach")
            }
        }
        let allowEven = try reader.bool(.etcdAllowEvenMembers) ?? false
        let etcdLocation = inventory.groups["etcd_cluster"]?.location ?? SourceLocation(file: inventory.path, line: 1)
        if etcdHosts.isEmpty {
            throw InventoryError(
                "[etcd_cluster] is empty: Patroni needs etcd", at: etcdLocation,
                hint: "list 3 (or 5) hosts under [etcd_cluster]")
        }
        if !allowEven, etcdHosts.count == 1 || etcdHosts.count % 2 == 0 {
            throw InventoryError(
                "[etcd_cluster] has \(etcdHosts.count) member(s): etcd needs an odd number, at least 3, to survive the loss of one",
                at: etcdLocation, hint: "use 3 or 5 members, or set etcd_allow_even_members: true to accept the risk")
        }
        if patroni.loopWait + 2 * patroni.retryTimeout > patroni.ttl {
            let origin = reader.origin(.patroniTTL) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "Patroni needs loop_wait + 2 × retry_timeout ≤ ttl, but \(patroni.loopWait) + 2 × \(patroni.retryTimeout) > \(patroni.ttl)",
                at: origin,
                hint: "raise patroni_ttl or lower patroni_loop_wait / patroni_retry_timeout")
        }
        if ReleaseNumber.isOlder(patroni.version, than: PatroniSettings.oldestInstalled) {
            throw InventoryError(
                "patroni_version \(patroni.version) is older than \(PatroniSettings.oldestInstalled)",
                at: reader.origin(.patroniVersion),
                hint:
                    "older releases can lose acknowledged writes with etcd v3 after a partition; remove patroni_version to get Keel's pinned release"
            )
        }
        for (group, variable, used) in [
            ("balancers", ClusterVariable.withHAProxy, haproxy != nil),
            ("pgbackrest", .pgbackrestInstall, backups != nil),
        ] where !used && !inventory.hostNames(in: group).isEmpty {
            throw InventoryError(
                "[\(group)] lists \(inventory.hostNames(in: group).joined(separator: ", ")), but \(variable.rawValue) "
                    + "is false: those hosts would be left out",
                at: inventory.groups[group]?.location ?? SourceLocation(file: inventory.path, line: 1),
                hint: "set \(variable.rawValue): true, or empty [\(group)]")
        }
        if inventory.hostNames(in: "pgbackrest").count > 1 {
            throw InventoryError(
                "[pgbackrest] lists \(inventory.hostNames(in: "pgbackrest").count) hosts; the repository is one host",
                at: inventory.groups["pgbackrest"]?.location ?? SourceLocation(file: inventory.path, line: 1),
                hint: "keep one")
        }
        if haproxy != nil, balancerHosts.isEmpty {
            let origin = reader.origin(.withHAProxy) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "with_haproxy_load_balancing is true but [balancers] is empty", at: origin,
                hint: "list the HAProxy hosts under [balancers]")
        }
        let usersOrigin = reader.origin(.postgresqlUsers) ?? SourceLocation(file: inventory.path, line: 1)
        for user in users where [logins.superuser.name, logins.replication.name].contains(user.name) {
            throw InventoryError(
                "postgresql_users lists \(user.name), the role Patroni keeps as its "
                    + (user.name == logins.superuser.name ? "superuser" : "replication user"),
                at: usersOrigin, hint: "remove it: its password and attributes are Patroni's")
        }
        for (names, variable) in [
            (users.map(\.name), ClusterVariable.postgresqlUsers), (databases.map(\.name), .postgresqlDatabases),
        ] {
            if let twice = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw InventoryError(
                    "\(variable.rawValue) lists \(twice) twice", at: reader.origin(variable) ?? usersOrigin,
                    hint: "keep one entry for it")
            }
        }
    }
}
