import Keel

/// Before the first change: the VIP can be bound on each host that may hold it, no one outside the cluster answers
/// for it, and no other VRRP router on the network uses the cluster's virtual router id.
struct BalancerPreflight: PreflightCheck {
    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        guard let vip = model.vip else { return "" }
        var script: [ShellCommand] = []
        // Before keepalived runs here: the VRRP routers already advertising on this network, for 3 s.
        if model.balancerHosts.contains(host) {
            script.append(
                "[ -e \(KeepalivedRole.configuration) ] || ! command -v python3 >/dev/null || python3 -c \(Self.vrrpListener)"
            )
        }
        script.append("\(vip.answers) >/dev/null 2>&1 && echo vip=answers")
        return script.joined(separator: "\n")
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        guard let vip = model.vip else { return [] }
        var problems: [String] = []
        if vip.candidates(in: model).contains(host) {
            do { _ = try vip.binding(on: context, address: model.address(of: host)) } catch {
                problems.append("\(error)")
            }
            let heldByCluster = context.peers.values.contains { $0.network(holding: vip.address) != nil }
            if found.contains("vip=answers") && !heldByCluster {
                problems.append(
                    "cluster_vip \(vip.address) already answers, and no host of the cluster holds it; choose a free address"
                )
            }
        }
        let balancers = Set(model.balancerHosts.map(model.address(of:)))
        let others = found.values("vrrp").filter { $0.hasPrefix("\(vip.routerID) ") }.map {
            String($0.split(separator: " ")[1])
        }
        .filter { !balancers.contains($0) }
        if let other = others.first {
            problems.append(
                "another VRRP router (\(other)) already uses virtual_router_id \(vip.routerID) on this network; "
                    + "set keepalived_virtual_router_id to an id no router here uses")
        }
        return problems
    }

    /// Prints `vrrp=ID SOURCE` for each VRRP router heard on this host's networks within 3 s (multicast adverts,
    /// and unicast ones sent here).
    static let vrrpListener = """
        import socket, struct, time
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 112)
        try:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton("224.0.0.18"), socket.inet_aton("0.0.0.0")))
        except OSError:
            pass
        s.settimeout(0.5)
        end, seen = time.time() + 3, set()
        while time.time() < end:
            try:
                data, (source, _) = s.recvfrom(2048)
            except socket.timeout:
                continue
            start = (data[0] & 15) * 4
            if len(data) > start + 1:
                seen.add((data[start + 1], source))
        for router, source in sorted(seen):
            print("vrrp=%d %s" % (router, source))
        """
}
