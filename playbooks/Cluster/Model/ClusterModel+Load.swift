import Foundation
import Keel

extension ClusterModel {
    /// Reads and checks the model from `inventory`, with passwords left empty filled from `secrets`.
    /// - Throws: ``InventoryError`` naming the file and line of an unknown variable, a wrong type or an impossible
    ///   value — before any host is touched.
    /// The cluster's name as the inventory gives it, read before any host is contacted, for the confirmations
    /// that can be checked at once; nil when it cannot be read without the hosts' facts.
    public static func name(in inventory: Inventory) -> String? {
        let databaseHosts = inventory.hostNames(in: "postgres_cluster") + inventory.hostNames(in: "master")
        guard let anchor = databaseHosts.first else { return nil }
        let reader = VariableReader(host: anchor, variables: inventory.variables(for: anchor))
        do {
            return try reader.string(.patroniClusterName) ?? "postgres-cluster"
        } catch {
            return nil
        }
    }

    public static func load(from inventory: Inventory, secrets: ClusterSecrets) throws(InventoryError) -> ClusterModel {
        let inventory = inventory.adding(defaults: ReferenceVariable.debianLayout)
        let etcdHosts = inventory.hostNames(in: "etcd_cluster")
        let databaseHosts =
            inventory.hostNames(in: "postgres_cluster").isEmpty
            ? inventory.hostNames(in: "master") + inventory.hostNames(in: "replica")
            : inventory.hostNames(in: "postgres_cluster")
        guard let anchor = databaseHosts.first else {
            throw InventoryError(
                "the inventory has no database hosts", at: SourceLocation(file: inventory.path, line: 1),
                hint: "list them under [master] and [replica], and both under [postgres_cluster:children]")
        }
        try checkNames(inventory)
        let reader = VariableReader(host: anchor, variables: inventory.variables(for: anchor))
        let name = try reader.string(.patroniClusterName) ?? "postgres-cluster"
        let version = try reader.int(.postgresqlVersion, in: 10...18) ?? 15
        let masters = inventory.hostNames(in: "master")
        let masterLocation = inventory.groups["master"]?.location ?? SourceLocation(file: inventory.path, line: 1)
        if masters.count > 1 {
            throw InventoryError(
                "[master] lists \(masters.count) hosts; a cluster has one", at: masterLocation,
                hint: "move the others to [replica]")
        }
        guard let master = masters.first else {
            throw InventoryError(
                "[master] lists no host", at: masterLocation,
                hint: "put the host that starts the cluster (its leader at first) under [master]")
        }
        guard databaseHosts.contains(master) else {
            throw InventoryError(
                "the [master] host \(master) is not in [postgres_cluster]", at: masterLocation,
                hint: "list master and replica under [postgres_cluster:children]")
        }
        var model = ClusterModel(
            name: name, postgresVersion: version, pgdg: try pgdg(reader, inventory: inventory, version: version),
            postgresPort: try reader.int(.postgresqlPort, in: 1...65535) ?? 5432,
            dataDirectory: try reader.string(.postgresqlDataDirectory) ?? "/var/lib/postgresql/\(version)/main",
            parameters: try parameters(reader), hbaRules: try hbaRules(reader), users: try users(reader),
            databases: try databases(reader), extensions: try extensions(reader),
            superuser: try reader.string(.superuserName) ?? "postgres",
            superuserPassword: try secret(reader, .superuserPassword, secrets),
            replicationUser: try reader.string(.replicationName) ?? "replicator",
            replicationPassword: try secret(reader, .replicationPassword, secrets),
            restAPIUser: try reader.string(.restAPIName) ?? "patroni",
            restAPIPassword: try secret(reader, .restAPIPassword, secrets),
            vrrpPassword: secrets.password(for: ClusterSecrets.vrrpPassword),
            synchronousMode: try reader.bool(.synchronousMode) ?? true,
            synchronousModeStrict: try reader.bool(.synchronousModeStrict) ?? false,
            synchronousNodeCount: try reader.int(.synchronousNodeCount, in: 1...16) ?? 1,
            ttl: try reader.int(.patroniTTL, in: 10...3600) ?? 30,
            loopWait: try reader.int(.patroniLoopWait, in: 1...600) ?? 10,
            retryTimeout: try reader.int(.patroniRetryTimeout, in: 1...600) ?? 10,
            maximumLagOnFailover: try reader.int(.patroniMaximumLag, in: 0...(1 << 50)) ?? 1_048_576,
            patroniVersion: try reader.string(.patroniVersion) ?? "4.1.5",
            upgradePatroni: try reader.bool(.upgradePatroni) ?? false,
            withHAProxy: try reader.bool(.withHAProxy) ?? false,
            haproxyPorts: try haproxyPorts(reader),
            vip: try vip(reader, inventory: inventory),
            pgbouncer: try reader.bool(.pgbouncerInstall) ?? true,
            pgbouncerPort: try reader.int(.pgbouncerListenPort, in: 1...65535) ?? 6432,
            pgbouncerPools: try pools(reader),
            pgbouncerDefaultPoolSize: try reader.int(.pgbouncerDefaultPoolSize, in: 1...10000) ?? 20,
            pgbouncerMaxClientConnections: try reader.int(.pgbouncerMaxClientConnections, in: 1...100000) ?? 10000,
            backups: try backups(
                reader, inventory: inventory, cluster: name, databaseHosts: databaseHosts, secrets: secrets),
            etcdHosts: etcdHosts, databaseHosts: databaseHosts, primaryHost: master,
            balancerHosts: inventory.hostNames(in: "balancers"))
        for host in model.allHosts {
            model.addresses[host] = try inventory.target(for: host).address
            if try VariableReader(host: host, variables: inventory.variables(for: host)).bool(.newNode) == true {
                model.newHosts.append(host)
            }
        }
        model.hostFlags = try HostFlags.read(inventory, model: model)
        try model.checkValues(reader, inventory: inventory)
        try model.check(reader, inventory: inventory)
        model.users = model.users.map { user in
            var user = user
            if user.password == nil { user.password = secrets.password(for: ClusterSecrets.userPassword(user.name)) }
            return user
        }
        if model.withHAProxy {
            model.haproxyStatsPassword = secrets.password(for: ClusterSecrets.haproxyStatsPassword)
        }
        model.patroniWheelDigest = try wheelDigest(reader, version: model.patroniVersion)
        model.dataCopyTimeout = .seconds(try reader.int(.dataCopyTimeout, in: 60...604_800) ?? 21_600)
        model.tls = try tls(reader, model: model, secrets: secrets)
        model.etcdTLS = try reader.bool(.etcdTLS) ?? (model.tls != nil)
        if model.etcdTLS, model.tls == nil {
            throw InventoryError(
                "etcd_tls_enable is true but the cluster has no certificates", at: reader.origin(.etcdTLS),
                hint: "set tls_cert_generate: true, or etcd_tls_enable: false")
        }
        model.pgbouncerClientTLS =
            try reader.string(.pgbouncerClientTLSMode) ?? (model.tls == nil ? "disable" : "prefer")
        let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
        if !modes.contains(model.pgbouncerClientTLS) || (model.tls == nil && model.pgbouncerClientTLS != "disable") {
            throw InventoryError(
                "pgbouncer_client_tls_sslmode '\(model.pgbouncerClientTLS)' cannot be used here",
                at: reader.origin(.pgbouncerClientTLSMode),
                hint: model.tls == nil
                    ? "PgBouncer serves TLS only with tls_cert_generate: true"
                    : "use one of \(modes.joined(separator: ", "))")
        }
        model.generatedSecrets = Set(secrets.generated)
        return model
    }

    /// The cluster's CA and the certificates of database and etcd hosts when `tls_cert_generate` is true (the
    /// default): each valid for the host's address and, on a database host, the VIP when there is one.
    private static func tls(_ reader: VariableReader, model: ClusterModel, secrets: ClusterSecrets)
        throws(InventoryError) -> ClusterTLS?
    {
        guard try reader.bool(.tlsCertGenerate) ?? true else { return nil }
        let days = try reader.int(.tlsCertValidDays, in: 31...36500) ?? 3650
        var hosts = Dictionary(uniqueKeysWithValues: model.etcdHosts.map { ($0, [model.address(of: $0)]) })
        for host in model.databaseHosts {
            hosts[host] = [model.address(of: host)] + (model.vip.map { [$0.address] } ?? [])
        }
        do {
            return try ClusterTLS.load(cluster: model.name, hosts: hosts, validDays: days, secrets: secrets)
        } catch {
            throw InventoryError(
                "cannot make the cluster's TLS certificates: \(error)", at: reader.origin(.tlsCertGenerate),
                hint: "check the tls_* entries of .keel-secrets.yml, or set tls_cert_generate: false")
        }
    }

    /// `patroni_wheel_sha256`, else the digest Keel pins for `version`.
    private static func wheelDigest(_ reader: VariableReader, version: String) throws(InventoryError) -> String {
        if let digest = try reader.string(.patroniWheelDigest) {
            guard digest.count == 64, digest.allSatisfy(\.isHexDigit) else {
                throw InventoryError(
                    "patroni_wheel_sha256 '\(digest)' is not a SHA-256 (64 hex digits)",
                    at: reader.origin(.patroniWheelDigest))
            }
            return digest.lowercased()
        }
        guard let pinned = PatroniWheel.pinned[version] else {
            throw InventoryError(
                "Keel pins no SHA-256 for the Patroni \(version) wheel, and root would run code from it on every "
                    + "database host", at: reader.origin(.patroniVersion),
                hint: "give patroni_wheel_sha256 (the digest PyPI lists for patroni-\(version)-py3-none-any.whl), "
                    + "or remove patroni_version for Keel's release")
        }
        return pinned
    }

    /// `cluster_vip` on the balancers when HAProxy runs, else on the leader; nil when it is empty.
    private static func vip(_ reader: VariableReader, inventory: Inventory) throws(InventoryError) -> VIP? {
        guard let address = try reader.string(.clusterVIP), !address.isEmpty else { return nil }
        guard IPv4.isValid(address) else {
            throw InventoryError("cluster_vip '\(address)' is not an IPv4 address", at: reader.origin(.clusterVIP))
        }
        // Read on each host: its own facts decide an interface given as Jinja over them.
        var interfaces: [String: String] = [:]
        for host in inventory.hostNames {
            let own = VariableReader(host: host, variables: inventory.variables(for: host))
            if let interface = try own.string(.vipInterface), !interface.isEmpty { interfaces[host] = interface }
        }
        let lastByte = Int(address.split(separator: ".").last ?? "") ?? 1
        return VIP(
            address: address, placement: try reader.bool(.withHAProxy) ?? false ? .balancers : .leader,
            interfaces: interfaces,
            routerID: try reader.int(.keepalivedRouterID, in: 1...255) ?? max(lastByte, 1))
    }

    /// The inventory's password, or the stored (or newly generated) one when it is empty.
    private static func secret(_ reader: VariableReader, _ variable: ClusterVariable, _ secrets: ClusterSecrets)
        throws(InventoryError) -> Secret
    {
        if let value = try reader.string(variable), !value.isEmpty { return Secret(value) }
        return secrets.password(for: variable.rawValue)
    }

    /// The PGDG repository when `pgdg_repository` is true: `pgdg_repository_url` for a mirror, with the key it signs
    /// with in `pgdg_repository_key_file` (on this machine, relative to the inventory). Debian 12 itself packages
    /// PostgreSQL 15 only.
    private static func pgdg(_ reader: VariableReader, inventory: Inventory, version: Int) throws(InventoryError)
        -> PGDGRepository?
    {
        guard try reader.bool(.pgdgRepository) ?? false else {
            if version != 15 {
                throw InventoryError(
                    "postgresql_version is \(version), but Debian 12 packages PostgreSQL 15 only",
                    at: reader.origin(.postgresqlVersion), hint: "set pgdg_repository: true, or use 15")
            }
            return nil
        }
        var url = try reader.string(.pgdgRepositoryURL) ?? PGDGRepository.official
        while url.hasSuffix("/") { url.removeLast() }
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), !url.contains(where: \.isWhitespace) else {
            throw InventoryError(
                "pgdg_repository_url '\(url)' is not an http(s) URL", at: reader.origin(.pgdgRepositoryURL),
                hint: "give the repository's base URL, as \(PGDGRepository.official)")
        }
        guard let keyFile = try reader.string(.pgdgRepositoryKeyFile), !keyFile.isEmpty else {
            return PGDGRepository(url: url, key: nil)
        }
        let origin = reader.origin(.pgdgRepositoryKeyFile)
        let base = (inventory.path as NSString).deletingLastPathComponent
        let path = keyFile.hasPrefix("/") ? keyFile : (base as NSString).appendingPathComponent(keyFile)
        guard let key = try? String(contentsOfFile: path, encoding: .utf8),
            key.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----")
        else {
            throw InventoryError(
                "pgdg_repository_key_file \(path) is not a readable ASCII-armored public key", at: origin,
                hint: "export the mirror's signing key with gpg --armor --export")
        }
        return PGDGRepository(url: url, key: key)
    }

    /// pgBackRest's settings when `pgbackrest_install` is true. The repository host is the `[pgbackrest]` group's
    /// host, or the inventory host `pgbackrest_repo_host` names (by name or address); without one, the repository
    /// is a filesystem every database host shares at `pgbackrest_repo_path` (checked by the deploy).
    private static func backups(
        _ reader: VariableReader, inventory: Inventory, cluster: String, databaseHosts: [String],
        secrets: ClusterSecrets
    ) throws(InventoryError) -> Backups? {
        guard try reader.bool(.pgbackrestInstall) ?? false else { return nil }
        let install = reader.origin(.pgbackrestInstall)
        if let type = try reader.string(.pgbackrestRepositoryType), type != "posix" {
            throw InventoryError(
                "pgbackrest_repo_type '\(type)' is not supported", at: reader.origin(.pgbackrestRepositoryType),
                hint:
                    "use posix: a repository host under [pgbackrest], or a filesystem every database host mounts at pgbackrest_repo_path"
            )
        }
        let path = try reader.string(.pgbackrestRepositoryPath) ?? "/var/lib/pgbackrest"
        var repositoryHost = inventory.hostNames(in: "pgbackrest").first
        if let named = try reader.string(.pgbackrestRepositoryHost), !named.isEmpty {
            repositoryHost = inventory.hostNames.first {
                $0 == named || (try? inventory.target(for: $0).address) == named
            }
            guard repositoryHost != nil else {
                throw InventoryError(
                    "pgbackrest_repo_host '\(named)' is not a host of the inventory",
                    at: reader.origin(.pgbackrestRepositoryHost),
                    hint: "list it under [pgbackrest]")
            }
        }
        let repository: Backups.Repository
        if let repositoryHost {
            if databaseHosts.contains(repositoryHost) {
                throw InventoryError(
                    "the pgBackRest repository host \(repositoryHost) is also a database host",
                    at: inventory.groups["pgbackrest"]?.location ?? install,
                    hint: "use a host outside [postgres_cluster]: backups must outlive the database hosts")
            }
            do {
                repository = .host(
                    repositoryHost, databaseKey: try secrets.keyPair(for: "pgbackrest_ssh_key_postgres"),
                    repositoryKey: try secrets.keyPair(for: "pgbackrest_ssh_key_repository"))
            } catch {
                throw InventoryError(
                    "cannot make the pgBackRest SSH keys: \(error)", at: install,
                    hint: "install openssh-client on this machine")
            }
        } else {
            repository = .shared
        }
        return Backups(
            repository: repository, path: path, stanza: try reader.string(.pgbackrestStanza) ?? cluster,
            retentionFull: try reader.int(.pgbackrestRetentionFull, in: 1...1000) ?? 4,
            fullSchedule: try reader.string(.pgbackrestFullSchedule) ?? "Sun *-*-* 06:30",
            differentialSchedule: try reader.string(.pgbackrestDifferentialSchedule) ?? "Mon..Sat *-*-* 06:30")
    }

    /// Every variable any host sees must be one the model reads or a known connection or per-host setting.
    /// Every variable is Keel's, or postgresql_cluster's with a meaning for Keel (``ReferenceVariable``): one
    /// that Keel does not support yet is refused once it differs from postgresql_cluster's published value.
    private static func checkNames(_ inventory: Inventory) throws(InventoryError) {
        for host in inventory.hostNames {
            for (name, variable) in inventory.variables(for: host).sorted(by: { $0.key < $1.key })
            where !ClusterVariable.isKnown(name) {
                switch ReferenceVariable.treatment(of: name) {
                case .equivalent, .notApplicable:
                    continue
                case .notSupportedYet(let instead):
                    if ReferenceVariable.isPublished(variable.value, for: name) { continue }
                    let shown = String(Variable.shown(variable.value, name: name).description.prefix(80))
                    throw InventoryError(
                        "\(name) is set to '\(shown)': Keel does not support this postgresql_cluster setting yet",
                        at: variable.origin,
                        hint: "\(instead); remove it, or keep postgresql_cluster's value")
                case nil:
                    throw InventoryError(
                        "unknown variable '\(name)'", at: variable.origin,
                        hint: ClusterVariable.suggestion(for: name).map { "did you mean '\($0)'?" }
                            ?? "Keel does not use it; remove it, or check its spelling against the README's variable list"
                    )
                }
            }
        }
    }

    private func check(_ reader: VariableReader, inventory: Inventory) throws(InventoryError) {
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
        if synchronousMode, synchronousNodeCount > synchronousCandidates {
            let origin = reader.origin(.synchronousNodeCount) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "synchronous_node_count is \(synchronousNodeCount) but the cluster has \(synchronousCandidates) replica(s)"
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
        if loopWait + 2 * retryTimeout > ttl {
            let origin = reader.origin(.patroniTTL) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "Patroni needs loop_wait + 2 × retry_timeout ≤ ttl, but \(loopWait) + 2 × \(retryTimeout) > \(ttl)",
                at: origin,
                hint: "raise patroni_ttl or lower patroni_loop_wait / patroni_retry_timeout")
        }
        if PatroniRelease.isOlder(patroniVersion, than: PatroniRelease.oldestInstalled) {
            throw InventoryError(
                "patroni_version \(patroniVersion) is older than \(PatroniRelease.text(PatroniRelease.oldestInstalled))",
                at: reader.origin(.patroniVersion),
                hint:
                    "older releases can lose acknowledged writes with etcd v3 after a partition; remove patroni_version to get Keel's pinned release"
            )
        }
        for (group, variable, used) in [
            ("balancers", ClusterVariable.withHAProxy, withHAProxy), ("pgbackrest", .pgbackrestInstall, backups != nil),
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
        if withHAProxy, balancerHosts.isEmpty {
            let origin = reader.origin(.withHAProxy) ?? SourceLocation(file: inventory.path, line: 1)
            throw InventoryError(
                "with_haproxy_load_balancing is true but [balancers] is empty", at: origin,
                hint: "list the HAProxy hosts under [balancers]")
        }
        let usersOrigin = reader.origin(.postgresqlUsers) ?? SourceLocation(file: inventory.path, line: 1)
        for user in users where [superuser, replicationUser].contains(user.name) {
            throw InventoryError(
                "postgresql_users lists \(user.name), the role Patroni keeps as its "
                    + (user.name == superuser ? "superuser" : "replication user"),
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
