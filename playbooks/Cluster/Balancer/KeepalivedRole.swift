import Keel

/// keepalived on a balancer: VRRP for the cluster VIP, held where HAProxy runs. Planning fails when the VIP is not
/// in the network of the balancer's interface.
struct KeepalivedRole: Role {
    let host: HostContext
    let model: ClusterModel
    let vip: VIP

    var steps: [Step] {
        get throws {
            let (interface, _) = try vip.binding(on: host, address: model.address(of: host.name))
            Package("keepalived")
            Template(
                "cluster/keepalived/keepalived.conf", to: "/etc/keepalived/keepalived.conf", mode: 0o600,
                values: [
                    "cluster": .string(model.name), "member": .string(host.name), "interface": .string(interface),
                    "instance": .string("keel_\(model.name.filter { $0.isLetter || $0.isNumber })"),
                    "router_id": .int(Int(vip.address.split(separator: ".").last ?? "1") ?? 1),
                    "vip": .string(vip.address),
                    "auth_pass": .string(String(model.vrrpPassword.reveal().prefix(8))),
                ], isSecret: true
            ).onChange(.restart("keepalived"))
            Service("keepalived", state: .started, enabled: true)
            FlushHandlers()
            // One of the balancers claims the VIP a few VRRP adverts after keepalived starts.
            WaitFor(.command("ping -c1 -W1 \(vip.address)"), timeout: .seconds(60))
        }
    }
}
