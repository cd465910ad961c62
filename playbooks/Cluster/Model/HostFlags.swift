import Foundation
import Keel

/// What a host's own line in postgresql_cluster's inventory says about it beyond its groups:
/// `10.0.0.2 hostname=pgnode02 patroni_tags="datacenter=dc1,nofailover=true" patroni_replicatefrom=pgnode01`,
/// on a balancer `balancer_tags="datacenter=dc1"`; and the settings read with the host's own facts
/// (`local_postgresql_parameters`).
public struct HostFlags: Sendable, Equatable {
    /// The name the server is given (`hostname`), when the inventory sets one.
    public var serverName: String?
    /// The member's own Patroni tags (`patroni_tags`, with `patroni_replicatefrom` as `replicatefrom` naming the
    /// member to stream from); they override Keel's defaults of Patroni's standard tags.
    public var patroniTags: [String: JSONValue] = [:]
    /// On a balancer: the Patroni tags a replica must have for this balancer to route to it (`balancer_tags`), added
    /// to its replica checks as Patroni's `tag_KEY=VALUE` query.
    public var balancerTags: [(key: String, value: String)] = []
    /// The member's own PostgreSQL parameters (`local_postgresql_parameters`, often sized from the host's memory),
    /// in its patroni.yml: they win over the cluster's in etcd on this member alone.
    public var postgresqlParameters: [ClusterModel.Parameter] = []

    public static func == (lhs: HostFlags, rhs: HostFlags) -> Bool {
        lhs.serverName == rhs.serverName && lhs.patroniTags == rhs.patroniTags
            && lhs.postgresqlParameters == rhs.postgresqlParameters
            && lhs.balancerTags.elementsEqual(rhs.balancerTags) { $0 == $1 }
    }

    /// Each host's flags, read and checked against the rest of `model` (hosts without any are left out); a
    /// `bind_address` must be the host's address.
    static func read(_ inventory: Inventory, model: ClusterModel) throws(InventoryError) -> [String: HostFlags] {
        var flags: [String: HostFlags] = [:]
        var replicateFrom: [String: (String, SourceLocation?)] = [:]
        for host in model.allHosts {
            let reader = VariableReader(host: host, variables: inventory.variables(for: host))
            let address = model.address(of: host)
            if let bind = try reader.string(.bindAddress), !bind.isEmpty, bind != address {
                throw InventoryError(
                    "bind_address \(bind) of \(host) is not the address Keel reaches it at (\(address))",
                    at: reader.origin(.bindAddress),
                    hint:
                        "Keel's services listen on the host's address: set ansible_host: \(bind), or remove bind_address"
                )
            }
            var hostFlags = HostFlags()
            if let name = try reader.string(.hostname), !name.isEmpty {
                guard isServerName(name) else {
                    throw InventoryError(
                        "hostname '\(name)' of \(host) is not a host name", at: reader.origin(.hostname),
                        hint: "use letters, digits and '-' in dot-separated labels of at most 63 characters")
                }
                hostFlags.serverName = name
            }
            if model.databaseHosts.contains(host) {
                hostFlags.postgresqlParameters = try ClusterModel.parameters(
                    reader, .localPostgresqlParameters, named: "local_postgresql_parameters of \(host)")
                hostFlags.patroniTags = try pairs(reader, .patroniTags, host: host).reduce(into: [:]) {
                    $0[$1.key] = typed($1.value)
                }
                if let upstream = try reader.string(.patroniReplicateFrom), !upstream.isEmpty {
                    replicateFrom[host] = (upstream, reader.origin(.patroniReplicateFrom))
                } else if case .string(let upstream) = hostFlags.patroniTags["replicatefrom"] {
                    replicateFrom[host] = (upstream, reader.origin(.patroniTags))
                }
            }
            if model.balancerHosts.contains(host) {
                hostFlags.balancerTags = try pairs(reader, .balancerTags, host: host)
            }
            if hostFlags != HostFlags() { flags[host] = hostFlags }
        }
        // A member streams from another member, named as the inventory, its address or its `hostname` name it.
        for (host, (upstream, origin)) in replicateFrom {
            let member = model.databaseHosts.first {
                $0 != host && [$0, model.address(of: $0), flags[$0]?.serverName].contains(upstream)
            }
            guard let member else {
                throw InventoryError(
                    "patroni_replicatefrom '\(upstream)' of \(host) is not another database host of the inventory",
                    at: origin, hint: "name a member by its inventory name, its address or its hostname")
            }
            flags[host, default: HostFlags()].patroniTags["replicatefrom"] = .string(member)
        }
        return flags
    }

    /// `key=value` pairs separated by commas; keys and values that stay one word in YAML and in a URL.
    private static func pairs(_ reader: VariableReader, _ variable: ClusterVariable, host: String)
        throws(InventoryError) -> [(key: String, value: String)]
    {
        guard let text = try reader.string(variable), !text.isEmpty else { return [] }
        var pairs: [(key: String, value: String)] = []
        for item in text.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, isWord(parts[0], allowing: "_"), isWord(parts[1], allowing: "_.:-"),
                parts[0].first?.isNumber == false
            else {
                throw InventoryError(
                    "\(variable.rawValue) of \(host) holds '\(item)', which is not key=value",
                    at: reader.origin(variable),
                    hint:
                        "write key=value pairs separated by commas (datacenter=dc1,nofailover=true): a key of letters, "
                        + "digits and _, a value of letters, digits and _.:-")
            }
            pairs.append((parts[0], parts[1]))
        }
        return pairs
    }

    /// A tag's value as YAML would type it in the reference's template: a boolean, a number, else text.
    private static func typed(_ value: String) -> JSONValue {
        switch value.lowercased() {
        case "true": .bool(true)
        case "false": .bool(false)
        default: Int(value).map { .integer($0) } ?? .string(value)
        }
    }

    private static func isWord(_ text: String, allowing extra: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { isAlphanumeric($0) || extra.unicodeScalars.contains($0) }
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// RFC 1123: dot-separated labels of letters, digits and `-` (not first or last), each 1–63 long.
    private static func isServerName(_ name: String) -> Bool {
        name.utf8.count <= 253
            && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && isWord(String(label), allowing: "-")
            }
    }
}
