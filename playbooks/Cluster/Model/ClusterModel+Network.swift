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

    /// The cluster's CA and a certificate for each service that serves TLS (``TLSService``) when
    /// `tls_cert_generate` is true (the default): each valid for the host's address and, where clients may reach
    /// it through the VIP, the VIP when there is one.
    static func tls(_ reader: VariableReader, model: ClusterModel, secrets: ClusterSecrets)
        throws(InventoryError) -> ClusterTLS?
    {
        guard try reader.bool(.tlsCertGenerate) ?? true else { return nil }
        let days = try reader.int(.tlsCertValidDays, in: 31...36500) ?? 3650
        let vip = model.vip.map { [$0.address] } ?? []
        var holders: [ClusterTLS.Holder: [String]] = [:]
        func issue(_ service: TLSService, on hosts: [String], viaVIP: Bool) {
            for host in hosts {
                holders[.init(host: host, service: service)] = [model.address(of: host)] + (viaVIP ? vip : [])
            }
        }
        issue(.database, on: model.databaseHosts, viaVIP: true)
        issue(.etcd, on: model.etcdHosts, viaVIP: false)
        issue(.pooler, on: model.balancerPoolers, viaVIP: true)
        // HAProxy's stats page and metrics answer on the VIP too.
        if model.haproxy != nil { issue(.haproxy, on: model.balancerHosts, viaVIP: true) }
        if model.monitoring != nil { issue(.exporters, on: model.allHosts, viaVIP: false) }
        // The REST API's clients: the members themselves, HAProxy's checks, the operator's Prometheus.
        issue(.apiClient, on: model.databaseHosts, viaVIP: false)
        if model.haproxy != nil { issue(.healthChecks, on: model.balancerHosts, viaVIP: false) }
        if model.monitoring != nil { holders[.init(host: TLSService.scraperHolder, service: .scraper)] = [] }
        do {
            return try ClusterTLS.load(cluster: model.name, holders: holders, validDays: days, secrets: secrets)
        } catch {
            throw InventoryError(
                "cannot make the cluster's TLS certificates: \(error)", at: reader.origin(.tlsCertGenerate),
                hint: "check the tls_* entries of .keel-secrets.yml, or set tls_cert_generate: false")
        }
    }
}
