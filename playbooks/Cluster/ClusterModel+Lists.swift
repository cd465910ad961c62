import Keel
import KeelSSH

/// The list-valued variables of postgresql_cluster (`postgresql_parameters: [{option: …, value: …}]` and
/// friends), each entry checked for the keys it needs.
extension ClusterModel {
    static func parameters(_ reader: VariableReader) throws(InventoryError) -> [Parameter] {
        try records(reader, "postgresql_parameters", required: ["option", "value"]).map { Parameter(option: $0["option"]!, value: $0["value"]!) }
    }

    static func hbaRules(_ reader: VariableReader) throws(InventoryError) -> [HBARule] {
        try records(reader, "postgresql_pg_hba", required: ["type", "database", "user", "method"]).map {
            HBARule(type: $0["type"]!, database: $0["database"]!, user: $0["user"]!, address: $0["address"] ?? "", method: $0["method"]!)
        }
    }

    static func users(_ reader: VariableReader) throws(InventoryError) -> [DatabaseUser] {
        try records(reader, "postgresql_users", required: ["name"]).map {
            DatabaseUser(name: $0["name"]!, password: ($0["password"] ?? "").isEmpty ? nil : Secret($0["password"]!), flags: $0["flags"] ?? "")
        }
    }

    static func databases(_ reader: VariableReader) throws(InventoryError) -> [Database] {
        try records(reader, "postgresql_databases", required: ["db"]).map { Database(name: $0["db"]!, owner: $0["owner"] ?? "postgres") }
    }

    static func extensions(_ reader: VariableReader) throws(InventoryError) -> [Extension] {
        try records(reader, "postgresql_extensions", required: ["ext", "db"]).map { Extension(name: $0["ext"]!, database: $0["db"]!) }
    }

    static func pools(_ reader: VariableReader) throws(InventoryError) -> [Pool] {
        try records(reader, "pgbouncer_pools", required: ["name"]).map {
            Pool(name: $0["name"]!, database: $0["dbname"] ?? $0["name"]!, options: $0["pool_parameters"] ?? "")
        }
    }

    static func haproxyPorts(_ reader: VariableReader) throws(InventoryError) -> HAProxyPorts {
        var ports = HAProxyPorts()
        guard let (name, variable) = reader.lookup(["haproxy_listen_port"]) else { return ports }
        guard case .map(let entries) = variable.value else {
            throw InventoryError("\(name) must be a mapping (master, replicas, replicas_sync, replicas_async, stats), not \(variable.value.kind)", at: variable.origin)
        }
        for (key, value) in entries {
            guard case .int(let port) = value, (1...65535).contains(port) else {
                throw InventoryError("\(name).\(key) must be a port number, not \(value.kind) '\(value)'", at: variable.origin)
            }
            switch key {
            case "master": ports.primary = port
            case "replicas": ports.replicas = port
            case "replicas_sync": ports.sync = port
            case "replicas_async": ports.async = port
            case "stats": ports.stats = port
            default: throw InventoryError("unknown key '\(key)' in \(name)", at: variable.origin, hint: "use master, replicas, replicas_sync, replicas_async, stats")
            }
        }
        return ports
    }

    /// A list of mappings as string dictionaries; every entry must have `required` keys.
    private static func records(_ reader: VariableReader, _ name: String, required: [String]) throws(InventoryError) -> [[String: String]] {
        guard let (_, variable) = reader.lookup([name]) else { return [] }
        guard case .list(let items) = variable.value else {
            throw InventoryError("\(name) must be a list of mappings, not \(variable.value.kind)", at: variable.origin)
        }
        var result: [[String: String]] = []
        for (index, item) in items.enumerated() {
            guard case .map(let entries) = item else {
                throw InventoryError("\(name)[\(index)] must be a mapping with \(required.joined(separator: ", ")), not \(item.kind)", at: variable.origin)
            }
            var record: [String: String] = [:]
            for (key, value) in entries {
                switch value {
                case .string(let text): record[key] = text
                case .int, .double, .bool: record[key] = value.description
                case .null: record[key] = ""
                default: throw InventoryError("\(name)[\(index)].\(key) must be a single value, not \(value.kind)", at: variable.origin)
                }
            }
            if let missing = required.first(where: { record[$0] == nil }) {
                throw InventoryError("\(name)[\(index)] has no '\(missing)'", at: variable.origin, hint: "each entry needs \(required.joined(separator: ", "))")
            }
            result.append(record)
        }
        return result
    }
}

/// Dotted-quad IPv4 addresses and subnets.
enum IPv4 {
    static func parse(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    static func isValid(_ text: String) -> Bool { parse(text) != nil }

    /// Whether `address` lies in `network` (`10.213.0.11/24`).
    static func contains(_ network: String, _ address: String) -> Bool {
        let parts = network.split(separator: "/")
        guard parts.count == 2, let base = parse(String(parts[0])), let bits = Int(parts[1]), (0...32).contains(bits),
              let candidate = parse(address) else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << UInt32(32 - bits)
        return base & mask == candidate & mask
    }
}
