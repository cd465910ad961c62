import Foundation
import Keel

/// keepalived's configuration on a balancer: unicast VRRP to the other balancers, a priority of its own, and the
/// VIP given up while HAProxy is down. Written here, it takes effect in the order ``BalancerPlays`` gives (see
/// ``KeepalivedReload``). Planning fails when the VIP is not in the network of the balancer's interface.
struct KeepalivedRole: Role {
    let host: HostContext
    let model: ClusterModel
    let vip: VIP

    static let configuration = "/etc/keepalived/keepalived.conf"
    /// Keel's drop-in for keepalived's unit: restarted after a kill, the VIP released whenever it stops or starts.
    static let serviceDropIn = "/etc/systemd/system/keepalived.service.d/keel.conf"
    static let packages = ["keepalived"]
    /// What Keel leaves on a balancer for keepalived (its VRRP password among it), which removing the cluster deletes.
    static let footprint = [configuration, serviceDropIn]

    /// Each balancer's VRRP priority: distinct, highest for the first balancer, so that a single backup takes over
    /// from a failed holder; a balancer added later ranks below those before it.
    static func priority(of host: String, in model: ClusterModel) -> Int {
        200 - (model.balancerHosts.firstIndex(of: host) ?? 0)
    }

    var steps: [Step] {
        get throws {
            let (interface, _) = try vip.binding(on: host, address: model.address(of: host.name))
            Package(Self.packages)
            Template(
                "cluster/keepalived/keepalived.conf", to: Self.configuration, mode: 0o600,
                values: [
                    "cluster": .string(model.name), "member": .string(host.name), "interface": .string(interface),
                    "instance": .string("keel_\(model.name.filter { $0.isLetter || $0.isNumber })"),
                    "router_id": .int(vip.routerID), "vip": .string(vip.address),
                    "priority": .int(Self.priority(of: host.name, in: model)),
                    "address": .string(model.address(of: host.name)),
                    "peers": .list(
                        model.balancerHosts.filter { $0 != host.name }.map { .string(model.address(of: $0)) }),
                    "auth_pass": .string(String(model.vrrpPassword.reveal().prefix(8))),
                ], isSecret: true
            )
            Directory((Self.serviceDropIn as NSString).deletingLastPathComponent)
            Template(
                "cluster/keepalived/service.conf", to: Self.serviceDropIn,
                values: ["vip": .string(vip.address), "interface": .string(interface)]
            ).onChange(.run(name: "reload systemd units", command: "systemctl daemon-reload"))
        }
    }
}
