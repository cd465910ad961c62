import Keel

/// Which cluster a database host serves, read on the host: its Patroni's `scope` (patroni.yml, quoted as Keel
/// writes it or bare as others do) and its data's system identifier (pg_control). A flow that replaces or deletes
/// data reads both before it plans: an inventory whose name another cluster shares (the reference's default
/// `postgres-cluster`) must not reach that cluster's data.
struct ClusterIdentity: Sendable, Equatable {
    var scope: String?
    var systemID: String?

    init(scope: String? = nil, systemID: String? = nil) {
        self.scope = scope
        self.systemID = systemID
    }

    /// Prints `scope=NAME` and `system=ID` for what the host has; nothing for what it has not.
    static func read(_ model: ClusterModel) -> ShellCommand {
        "awk '$1 == \"scope:\" { v = $2; gsub(/^[\"'\\'']|[\"'\\'']$/, \"\", v); print \"scope=\" v }' "
            + "/etc/patroni/patroni.yml 2>/dev/null; "
            + "[ -f \(model.dataDirectory + "/global/pg_control") ] && "
            + "\(model.binDirectory + "/pg_controldata") \(model.dataDirectory) 2>/dev/null | "
            + "awk -F: '/^Database system identifier/ { gsub(/ /, \"\", $2); print \"system=\" $2 }'; true"
    }

    /// What ``read(_:)`` printed (other lines are ignored).
    init(_ output: String) {
        let lines = output.split(separator: "\n")
        scope = lines.first { $0.hasPrefix("scope=") }.map { String($0.dropFirst(6)) }
        systemID = lines.first { $0.hasPrefix("system=") }.map { String($0.dropFirst(7)) }
    }

    /// The system identifier the hosts share (nil when none has data).
    /// - Throws: ``FlowError`` when a host serves a Patroni cluster of another name, or two hosts hold data of
    ///   different clusters.
    static func check(_ identities: [String: ClusterIdentity], _ model: ClusterModel) throws(FlowError) -> String? {
        for (host, identity) in identities.sorted(by: { $0.key < $1.key }) {
            if let scope = identity.scope, scope != model.name {
                throw FlowError(
                    "\(host) serves the Patroni cluster '\(terminalSafe(scope))' (its patroni.yml), not '\(model.name)'",
                    hint: "this inventory does not describe the cluster on \(host): check -i (nothing was changed)")
            }
        }
        let systems = Dictionary(
            grouping: identities.compactMap { host, identity in
                identity.systemID.map { (host, $0) }
            }
        ) { $0.1 }
        guard systems.count <= 1 else {
            let listed = systems.sorted { $0.key < $1.key }.map { system, hosts in
                "\(hosts.map(\.0).sorted().joined(separator: ", ")): \(terminalSafe(system))"
            }
            throw FlowError(
                "the members hold data of different clusters (system identifiers \(listed.joined(separator: "; ")))",
                hint: "this inventory does not describe one cluster: check -i and each host (nothing was changed)")
        }
        return systems.keys.first
    }
}
