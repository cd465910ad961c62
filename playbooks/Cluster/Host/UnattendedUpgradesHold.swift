import Keel

/// Keeps Debian's `unattended-upgrades` (when the host runs it) away from the cluster's packages: a security
/// release of PostgreSQL, etcd or HAProxy installed behind the cluster's back restarts its service at a random
/// moment, on every host the same night. Those packages are updated by `keel update`, one host at a time.
struct UnattendedUpgradesHold: Role {
    static let path = "/etc/apt/apt.conf.d/51keel-hold"

    let host: String
    let model: ClusterModel

    var steps: [Step] {
        let packages = UpdatedComponent.allCases.flatMap { $0.packages(on: host, model) }
        if !packages.isEmpty {
            File(
                Self.path,
                content: "// Managed by Keel: these packages are updated by keel update, one host at a time.\n"
                    + "Unattended-Upgrade::Package-Blacklist {\n"
                    + packages.map { "    \"^\(pattern($0))$\";\n" }.joined() + "};\n")
        }
    }

    /// `name` as a regular expression that matches only it.
    private func pattern(_ name: String) -> String {
        name.replacingOccurrences(of: ".", with: "\\.").replacingOccurrences(of: "+", with: "\\+")
    }
}
