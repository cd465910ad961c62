import Keel

/// The model's VIP and TLS certificates, read from the inventory.
extension ClusterModel {
    /// `cluster_vip` on the balancers when HAProxy runs, else on the leader; nil when it is empty.
    static func vip(_ reader: VariableReader, inventory: Inventory) throws(InventoryError) -> VIP? {
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

    /// The cluster's CA and the certificates of database, etcd and balancer-PgBouncer hosts (of every host, with
    /// monitoring) when `tls_cert_generate` is true (the default): each valid for the host's address and, where
    /// clients may reach it through the VIP, the VIP when there is one.
    static func tls(_ reader: VariableReader, model: ClusterModel, secrets: ClusterSecrets)
        throws(InventoryError) -> ClusterTLS?
    {
        guard try reader.bool(.tlsCertGenerate) ?? true else { return nil }
        let days = try reader.int(.tlsCertValidDays, in: 31...36500) ?? 3650
        var hosts = Dictionary(uniqueKeysWithValues: model.etcdHosts.map { ($0, [model.address(of: $0)]) })
        // With monitoring, every balancer too: Prometheus may reach HAProxy's metrics through the VIP.
        let balancers = model.monitoring == nil ? model.balancerPoolers : model.balancerHosts
        for host in model.databaseHosts + balancers {
            hosts[host] = [model.address(of: host)] + (model.vip.map { [$0.address] } ?? [])
        }
        for host in model.allHosts where model.monitoring != nil && hosts[host] == nil {
            hosts[host] = [model.address(of: host)]
        }
        do {
            return try ClusterTLS.load(cluster: model.name, hosts: hosts, validDays: days, secrets: secrets)
        } catch {
            throw InventoryError(
                "cannot make the cluster's TLS certificates: \(error)", at: reader.origin(.tlsCertGenerate),
                hint: "check the tls_* entries of .keel-secrets.yml, or set tls_cert_generate: false")
        }
    }
}
