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
        _ = try ignoredVariables(in: inventory)
        let reader = VariableReader(host: anchor, variables: inventory.variables(for: anchor))
        let name = try reader.string(.patroniClusterName, .name) ?? "postgres-cluster"
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
            dataDirectory: try reader.string(.postgresqlDataDirectory, .deletablePath)
                ?? "\(ClusterModel.postgresHome)/\(version)/main",
            parameters: try parameters(reader), hbaRules: try hbaRules(reader), users: try users(reader),
            databases: try databases(reader), extensions: try extensions(reader),
            logins: ClusterLogins(
                superuser: .init(
                    name: try reader.string(.superuserName, .roleName) ?? "postgres",
                    password: try secret(reader, .superuserPassword, secrets)),
                replication: .init(
                    name: try reader.string(.replicationName, .roleName) ?? "replicator",
                    password: try secret(reader, .replicationPassword, secrets)),
                restAPI: .init(
                    name: try reader.string(.restAPIName, .roleName) ?? "patroni",
                    password: try secret(reader, .restAPIPassword, secrets))),
            vrrpPassword: secrets.password(for: ClusterSecrets.vrrpPassword),
            patroni: try PatroniSettings.read(reader),
            vip: try vip(reader, inventory: inventory),
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
        let ports = try haproxyPorts(reader)
        if try reader.bool(.withHAProxy) ?? false {
            model.haproxy = HAProxySettings(
                ports: ports, statsPassword: secrets.password(for: ClusterSecrets.haproxyStatsPassword))
        }
        model.hostFlags = try HostFlags.read(inventory, model: model)
        try model.checkValues(inventory: inventory)
        try model.check(reader, inventory: inventory)
        model.users = model.users.map { user in
            var user = user
            if user.password == nil { user.password = secrets.password(for: ClusterSecrets.userPassword(user.name)) }
            return user
        }
        model.patroni.wheelDigest = try PatroniSettings.wheelDigest(reader, version: model.patroni.version)
        model.limits = try FlowLimits.read(reader)
        // Before the certificates: the balancers' PgBouncers get one.
        model.pgbouncer = try PgBouncerSettings.read(reader, withTLS: try reader.bool(.tlsCertGenerate) ?? true)
        // Before the certificates: with monitoring, every host serves metrics over TLS.
        model.monitoring = try MonitoringSettings.read(reader, secrets: secrets)
        model.tls = try tls(reader, model: model, secrets: secrets)
        model.etcdTLS = try reader.bool(.etcdTLS) ?? (model.tls != nil)
        if model.etcdTLS, model.tls == nil {
            throw InventoryError(
                "etcd_tls_enable is true but the cluster has no certificates", at: reader.origin(.etcdTLS),
                hint: "set tls_cert_generate: true, or etcd_tls_enable: false")
        }
        model.generatedSecrets = Set(secrets.generated)
        return model
    }

    /// The inventory's password, or the stored (or newly generated) one when it is empty.
    private static func secret(_ reader: VariableReader, _ variable: ClusterVariable, _ secrets: ClusterSecrets)
        throws(InventoryError) -> Secret
    {
        if let value = try reader.string(variable, .password), !value.isEmpty { return Secret(value) }
        return secrets.password(for: variable.rawValue)
    }

    /// Every variable any host sees is Keel's (the model's, a connection or per-host setting), or
    /// postgresql_cluster's with a meaning for Keel (``ReferenceVariable``): one that Keel does not support yet is
    /// refused once it differs from postgresql_cluster's published value. A near-miss of a known name is refused
    /// as a typo; any other name is another tool's, and ignored (``IgnoredVariables``).
    /// - Throws: ``InventoryError`` for a near-miss of a known name, or a setting Keel cannot honour yet.
    public static func ignoredVariables(in inventory: Inventory) throws(InventoryError) -> IgnoredVariables {
        var ignored = IgnoredVariables()
        for host in inventory.hostNames {
            let reader = VariableReader(host: host, variables: inventory.variables(for: host))
            for (name, variable) in inventory.variables(for: host).sorted(by: { $0.key < $1.key })
            where !ClusterVariable.isKnown(name) {
                switch ReferenceVariable.treatment(of: name) {
                case .equivalent, .notApplicable:
                    continue
                case .notSupportedYet(let instead):
                    if ReferenceVariable.isPublished(variable.value, for: name, evaluatedBy: reader) { continue }
                    let shown = String(Variable.shown(variable.value, name: name).description.prefix(80))
                    throw InventoryError(
                        "\(name) is set to '\(shown)': Keel does not support this postgresql_cluster setting yet",
                        at: variable.origin,
                        hint: "\(instead); remove it, or keep postgresql_cluster's value")
                case nil:
                    guard let known = ClusterVariable.suggestion(for: name) else {
                        ignored.add(name, at: variable.origin)
                        continue
                    }
                    throw InventoryError(
                        "unknown variable '\(name)'", at: variable.origin,
                        hint: "did you mean '\(known)'? (a name Keel does not know at all is ignored with a warning)")
                }
            }
        }
        return ignored
    }

}
