import Keel

/// The list-valued variables of postgresql_cluster (`postgresql_parameters: [{option: …, value: …}]` and
/// friends), each entry checked for the keys it needs and each value for the kind of text it must be (where it
/// lands: SQL, pg_hba, pgbouncer.ini).
extension ClusterModel {
    static func parameters(
        _ reader: VariableReader, _ variable: ClusterVariable = .postgresqlParameters, named name: String? = nil
    ) throws(InventoryError) -> [Parameter] {
        try records(reader, variable, named: name, required: ["option", "value"], kinds: ["option": .name]).map {
            Parameter(option: $0["option"]!, value: $0.json("value"))
        }
    }

    static func hbaRules(_ reader: VariableReader) throws(InventoryError) -> [HBARule] {
        let fields = ["type", "database", "user", "address", "method"]
        return try records(
            reader, .postgresqlHBA, required: ["type", "database", "user", "method"],
            kinds: Dictionary(uniqueKeysWithValues: fields.map { ($0, ValueKind.hbaField) })
        ).map {
            HBARule(
                type: $0["type"]!, database: $0["database"]!, user: $0["user"]!, address: $0["address"] ?? "",
                method: $0["method"]!)
        }
    }

    /// Each user's attributes are those its `flags` name (LOGIN unless it says NOLOGIN); Keel leaves the others
    /// as they are, so a CDC user's REPLICATION survives every deploy.
    static func users(_ reader: VariableReader) throws(InventoryError) -> [DatabaseUser] {
        try records(reader, .postgresqlUsers, required: ["name"], kinds: ["name": .sqlName, "password": .password]).map
        {
            record throws(InventoryError) in
            let flags = record["flags"] ?? ""
            guard var attributes = RoleAttribute.parse(flags) else {
                throw InventoryError(
                    "postgresql_users \(record["name"]!): flags '\(flags)' name something that is not a role attribute",
                    at: reader.origin(.postgresqlUsers),
                    hint:
                        "use LOGIN, SUPERUSER, CREATEDB, CREATEROLE, INHERIT, REPLICATION, BYPASSRLS or their NO… forms"
                )
            }
            attributes[.login] = attributes[.login] ?? true
            return DatabaseUser(
                name: record["name"]!,
                password: (record["password"] ?? "").isEmpty ? nil : Secret(record["password"]!),
                attributes: attributes)
        }
    }

    static func databases(_ reader: VariableReader) throws(InventoryError) -> [Database] {
        try records(reader, .postgresqlDatabases, required: ["db"], kinds: ["db": .sqlName, "owner": .sqlName]).map {
            Database(name: $0["db"]!, owner: $0["owner"] ?? "postgres")
        }
    }

    static func extensions(_ reader: VariableReader) throws(InventoryError) -> [Extension] {
        try records(reader, .postgresqlExtensions, required: ["ext", "db"], kinds: ["ext": .sqlName, "db": .sqlName])
            .map {
                Extension(name: $0["ext"]!, database: $0["db"]!)
            }
    }

    static func pools(_ reader: VariableReader) throws(InventoryError) -> [Pool] {
        // Names land unquoted in pgbouncer.ini's [databases] section.
        try records(
            reader, .pgbouncerPools, required: ["name"],
            kinds: ["name": .name, "dbname": .name, "pool_parameters": .line]
        ).map {
            Pool(name: $0["name"]!, database: $0["dbname"] ?? $0["name"]!, options: $0["pool_parameters"] ?? "")
        }
    }

    static func haproxyPorts(_ reader: VariableReader) throws(InventoryError) -> HAProxySettings.Ports {
        var ports = HAProxySettings.Ports()
        guard let (name, variable) = try reader.lookup(.haproxyListenPort) else { return ports }
        guard case .map(let entries) = variable.value else {
            throw InventoryError(
                "\(name) must be a mapping (master, replicas, replicas_sync, replicas_async, stats), not \(variable.value.kind)",
                at: variable.origin)
        }
        for (key, value) in entries {
            guard case .int(let port) = value, (1...65535).contains(port) else {
                throw InventoryError(
                    "\(name).\(key) must be a port number, not \(value.kind) '\(value)'", at: variable.origin)
            }
            switch key {
            case "master": ports.primary = port
            case "replicas": ports.replicas = port
            case "replicas_sync": ports.sync = port
            case "replicas_async": ports.async = port
            case "stats": ports.stats = port
            default:
                throw InventoryError(
                    "unknown key '\(key)' in \(name)", at: variable.origin,
                    hint: "use master, replicas, replicas_sync, replicas_async, stats")
            }
        }
        return ports
    }

    /// One entry of a list-valued variable: scalars by key.
    struct Record {
        var values: [String: InventoryValue]

        /// The value of `key` as text; nil when it is absent.
        subscript(key: String) -> String? {
            switch values[key] {
            case .string(let text): text
            case .null: ""
            case let value?: value.description
            case nil: nil
            }
        }

        /// The value of `key` with its YAML type (`200` a number, `"200"` a string).
        func json(_ key: String) -> JSONValue {
            switch values[key] {
            case .int(let number): .integer(number)
            case .double(let number): .number(number)
            case .bool(let flag): .bool(flag)
            default: .string(self[key] ?? "")
            }
        }
    }

    /// A list of mappings of scalars; every entry must have `required` keys, and each key of `kinds` given a value
    /// must hold that kind of text (a required key even when empty). Messages name the variable as `name` does,
    /// else as the inventory wrote it.
    private static func records(
        _ reader: VariableReader, _ variable: ClusterVariable, named shownName: String? = nil, required: [String],
        kinds: [String: ValueKind] = [:]
    ) throws(InventoryError) -> [Record] {
        guard let (written, found) = try reader.lookup(variable) else { return [] }
        let name = shownName ?? written
        guard case .list(let items) = found.value else {
            throw InventoryError("\(name) must be a list of mappings, not \(found.value.kind)", at: found.origin)
        }
        var result: [Record] = []
        for (index, item) in items.enumerated() {
            guard case .map(let entries) = item else {
                throw InventoryError(
                    "\(name)[\(index)] must be a mapping with \(required.joined(separator: ", ")), not \(item.kind)",
                    at: found.origin)
            }
            for (key, value) in entries {
                switch value {
                case .list, .map:
                    throw InventoryError(
                        "\(name)[\(index)].\(key) must be a single value, not \(value.kind)", at: found.origin)
                default: break
                }
            }
            if let missing = required.first(where: { entries[$0] == nil }) {
                throw InventoryError(
                    "\(name)[\(index)] has no '\(missing)'", at: found.origin,
                    hint: "each entry needs \(required.joined(separator: ", "))")
            }
            let record = Record(values: entries)
            for (key, kind) in kinds.sorted(by: { $0.key < $1.key }) {
                guard let value = record[key], !value.isEmpty || required.contains(key) else { continue }
                try kind.check(value, named: "\(name) \(key)", at: found.origin)
            }
            result.append(record)
        }
        return result
    }
}
