import Keel

/// The cluster's virtual IP (`cluster_vip`), resolved once: where it lives and on which interface.
public struct VIP: Sendable, Equatable {
    /// Succeeds when some host answers at the VIP.
    var answers: ShellCommand { "ping -c1 -W1 \(address)" }

    public enum Placement: Sendable, Equatable {
        /// keepalived holds it on the balancer whose HAProxy runs.
        case balancers
        /// Without HAProxy it follows the Patroni leader (a Patroni callback moves it).
        case leader
    }

    public var address: String
    public var placement: Placement
    /// `vip_interface` as each host's own variables and facts give it (the reference's default is that host's
    /// `ansible_default_ipv4.interface`); a host without one uses the interface that holds its address.
    public var interfaces: [String: String] = [:]
    /// VRRP's id for the balancers' router, unique on the network segment (`keepalived_virtual_router_id`; by
    /// default the VIP's last byte).
    public var routerID: Int

    /// The hosts that may hold it.
    public func candidates(in model: ClusterModel) -> [String] {
        placement == .balancers ? model.balancerHosts : model.databaseHosts
    }

    /// Where the VIP goes on `host`: the interface holding the host's address (or `vip_interface`) and that
    /// network's prefix length.
    /// - Throws: when no interface holds the address, or the VIP lies outside its network.
    public func binding(on host: HostContext, address: String) throws -> (interface: String, prefix: Int) {
        guard let (name, network) = host.facts.network(holding: address) else {
            throw ResourceError(
                "no interface on \(host.name) holds \(address), so the VIP \(self.address) has no network there; set vip_interface"
            )
        }
        guard IPv4.contains(network, self.address), let prefix = Int(network.split(separator: "/")[1]) else {
            throw ResourceError(
                "cluster_vip \(self.address) is outside \(network), the network of \(name) on \(host.name); choose a free address in it"
            )
        }
        return (interfaces[host.name] ?? name, prefix)
    }
}
