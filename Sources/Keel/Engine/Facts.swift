/// What Keel knows about a host before it plans: gathered in one round trip, available to playbook code and
/// templates (as `facts.NAME`).
public struct Facts: Sendable, Equatable, Codable {
    public var osID = ""
    public var osVersion = ""
    /// The release's code name (`bookworm`).
    public var osCodename = ""
    /// `debian` for Debian and Ubuntu, `redhat` for the RHEL family.
    public var osFamily = ""
    public var architecture = ""
    public var hostname = ""
    public var processors = 0
    public var memoryMegabytes = 0
    /// The address of the interface that holds the default route, else the first global IPv4 address.
    public var defaultIPv4 = ""
    /// The interface that holds the default route, else the one holding ``defaultIPv4``.
    public var defaultInterface = ""
    /// Interface name → IPv4 addresses with prefix (`10.0.0.2/24`).
    public var interfaces: [String: [String]] = [:]
    public var hasSystemd = false
    /// `apt`, `dnf` or `yum`; empty when none is found.
    public var packageManager = ""
    /// The host's SSH public host keys, `TYPE BASE64` each: what its peers put in their known_hosts.
    public var sshHostKeys: [String] = []

    public init() {}

    /// The shell snippet that prints the facts as `key=value` lines. The shell's own `read` does what it can: a
    /// tool started costs a host about a millisecond of CPU, and every run gathers these on every host.
    static let script = """
        . /etc/os-release 2>/dev/null; echo "os_id=$ID"; echo "os_version=$VERSION_ID"; echo "os_like=$ID_LIKE"
        echo "os_codename=$VERSION_CODENAME"
        read -r a 2>/dev/null < /proc/sys/kernel/arch || a=$(uname -m); echo "arch=$a"
        c=; while read -r k v; do [ "$k" = Cpus_allowed_list: ] && c=$v; done 2>/dev/null < /proc/self/status
        if [ -n "$c" ]; then echo "cpu_list=$c"; else echo "cpus=$(nproc 2>/dev/null || echo 1)"; fi
        read -r h < /proc/sys/kernel/hostname && echo "hostname=$h"
        while read -r k v _; do [ "$k" = MemTotal: ] && { echo "mem_kb=$v"; break; }; done < /proc/meminfo
        while read -r i d _; do [ "$d" = 00000000 ] && { echo "default_if=$i"; break; }; done 2>/dev/null < /proc/net/route
        ip -o -4 addr show 2>/dev/null | while read -r _ i _ a _; do echo "addr=$i $a"; done
        [ -d /run/systemd/system ] && echo systemd=1
        for pm in apt-get dnf yum; do command -v $pm >/dev/null 2>&1 && { echo "pm=${pm%-get}"; break; }; done
        for key in /etc/ssh/ssh_host_*_key.pub; do [ -r "$key" ] && read -r t k _ < "$key" && echo "host_key=$t $k"; done
        """

    /// The host's facts, read through `transport` in one round trip.
    public static func gather(through transport: any Transport) async throws -> Facts {
        parse(try await transport.run(script, timeout: .seconds(60)).stdoutText)
    }

    /// How many processors a list such as `0-3,6` names (what `nproc` counts: those the shell may run on); 1 when
    /// it names none.
    static func processors(in list: String) -> Int {
        let count = list.split(separator: ",").reduce(0) { count, range in
            let bounds = range.split(separator: "-").compactMap { Int($0) }
            return count + (bounds.count == 2 ? max(0, bounds[1] - bounds[0] + 1) : bounds.count)
        }
        return max(1, count)
    }

    /// Reads the output of ``script``.
    public static func parse(_ text: String) -> Facts {
        var facts = Facts()
        var like = ""
        var defaultInterface = ""
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals]
            let value = String(line[line.index(after: equals)...])
            switch key {
            case "os_id": facts.osID = value
            case "os_version": facts.osVersion = value
            case "os_like": like = value
            case "os_codename": facts.osCodename = value
            case "arch": facts.architecture = value
            case "hostname": facts.hostname = value
            case "cpus": facts.processors = Int(value) ?? 1
            case "cpu_list": facts.processors = processors(in: value)
            case "mem_kb": facts.memoryMegabytes = (Int(value) ?? 0) / 1024
            case "default_if": defaultInterface = value
            case "addr":
                let parts = value.split(separator: " ").map(String.init)
                if parts.count == 2 { facts.interfaces[parts[0], default: []].append(parts[1]) }
            case "systemd": facts.hasSystemd = true
            case "pm": facts.packageManager = value
            case "host_key": facts.sshHostKeys.append(value)
            default: break
            }
        }
        let family = [facts.osID] + like.split(separator: " ").map(String.init)
        facts.osFamily =
            family.contains { ["debian", "ubuntu"].contains($0) }
            ? "debian"
            : family.contains { ["rhel", "fedora", "centos"].contains($0) } ? "redhat" : facts.osID
        let candidates =
            (facts.interfaces[defaultInterface] ?? [])
            + facts.interfaces.filter { $0.key != "lo" }.sorted { $0.key < $1.key }.flatMap(\.value)
        facts.defaultIPv4 = candidates.first.map { String($0.split(separator: "/")[0]) } ?? ""
        facts.defaultInterface =
            facts.interfaces[defaultInterface] != nil
            ? defaultInterface : facts.network(holding: facts.defaultIPv4)?.interface ?? ""
        return facts
    }

    /// The interface holding `address`, with its network (`10.0.0.2/24`); nil when no interface does.
    public func network(holding address: String) -> (interface: String, network: String)? {
        for (name, networks) in interfaces.sorted(by: { $0.key < $1.key }) {
            if let network = networks.first(where: { $0.hasPrefix(address + "/") }) { return (name, network) }
        }
        return nil
    }

    /// The names of ``ansibleVariables``.
    public static let ansibleNames = Set(Facts().ansibleVariables.keys)

    /// The facts under Ansible's names, for Jinja in variables (`ansible_memtotal_mb`, `ansible_default_ipv4`).
    public var ansibleVariables: [String: InventoryValue] {
        let distribution = osID == "debian" ? "Debian" : osID == "ubuntu" ? "Ubuntu" : osID.capitalized
        let network = network(holding: defaultIPv4)?.network.split(separator: "/").last.flatMap { Int($0) }
        return [
            "ansible_memtotal_mb": .int(memoryMegabytes),
            "ansible_processor_vcpus": .int(processors),
            "ansible_hostname": .string(String(hostname.prefix { $0 != "." })),
            "ansible_nodename": .string(hostname),
            "ansible_architecture": .string(architecture),
            "ansible_distribution": .string(distribution),
            "ansible_distribution_release": .string(osCodename),
            "ansible_distribution_version": .string(osVersion),
            "ansible_distribution_major_version": .string(String(osVersion.prefix { $0 != "." })),
            "ansible_os_family": .string(osFamily == "debian" ? "Debian" : osFamily == "redhat" ? "RedHat" : osFamily),
            "ansible_default_ipv4": .map(
                [
                    "address": .string(defaultIPv4), "interface": .string(defaultInterface),
                    "prefix": network.map { .string(String($0)) } ?? .null,
                ]),
        ]
    }

    /// The facts as template values.
    var templateValue: [String: Any] {
        [
            "os_id": osID, "os_version": osVersion, "os_family": osFamily, "architecture": architecture,
            "hostname": hostname, "processors": processors, "memory_mb": memoryMegabytes,
            "default_ipv4": defaultIPv4, "interfaces": interfaces, "has_systemd": hasSystemd,
            "package_manager": packageManager,
        ]
    }
}
