/// A role attribute PostgreSQL keeps in `pg_authid`, each with its `NO…` opposite.
public enum RoleAttribute: String, CaseIterable, Sendable {
    case superuser = "SUPERUSER", createdb = "CREATEDB", createrole = "CREATEROLE", inherit = "INHERIT"
    case login = "LOGIN", replication = "REPLICATION", bypassrls = "BYPASSRLS"

    /// Its column in `pg_authid`.
    var column: String {
        switch self {
        case .superuser: "rolsuper"
        case .createdb: "rolcreatedb"
        case .createrole: "rolcreaterole"
        case .inherit: "rolinherit"
        case .login: "rolcanlogin"
        case .replication: "rolreplication"
        case .bypassrls: "rolbypassrls"
        }
    }

    /// The keyword that sets it to `value`: `LOGIN` or `NOLOGIN`.
    func keyword(_ value: Bool) -> String { (value ? "" : "NO") + rawValue }

    /// Attributes from text such as postgresql_cluster's `flags` (`"LOGIN,CREATEDB"`, `"superuser nologin"`);
    /// nil for a word that is not one.
    public static func parse(_ text: String) -> [RoleAttribute: Bool]? {
        var attributes: [RoleAttribute: Bool] = [:]
        for word in text.uppercased().split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            if let attribute = RoleAttribute(rawValue: String(word)) {
                attributes[attribute] = true
            } else if word.hasPrefix("NO"), let attribute = RoleAttribute(rawValue: String(word.dropFirst(2))) {
                attributes[attribute] = false
            } else {
                return nil
            }
        }
        return attributes
    }
}

/// A PostgreSQL role with the attributes it is given (others are left as they are) and, optionally, a password.
///
/// The password is compared with the stored SCRAM verifier, and set as a verifier computed by Keel: the plain
/// text reaches neither the server nor any command line, and the plan shows the verifier as `***`.
public struct PostgresRole: Resource {
    public var name: String
    public var password: Secret?
    public var attributes: [RoleAttribute: Bool]
    public var connection: PostgresConnection

    public init(
        _ name: String, password: Secret? = nil, attributes: [RoleAttribute: Bool] = [.login: true],
        connection: PostgresConnection = PostgresConnection()
    ) {
        self.name = name
        self.password = password
        self.attributes = attributes
        self.connection = connection
    }

    public var description: String { "postgres role \(name)" }
    /// Databases owned by the role can be probed for their owner only once it exists.
    public var affectsOtherResources: Bool { true }

    public var probe: String {
        let columns = RoleAttribute.allCases.map(\.column).joined(separator: ", ")
        return connection.probe(
            "SELECT 'found', \(columns), coalesce(rolpassword, '') FROM pg_authid WHERE rolname = \(SQL.literal(name));"
        )
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let rows = try connection.rows(output, on: host) else { return [] }
        let fields = rows.first ?? []
        let named = RoleAttribute.allCases.compactMap { attribute in attributes[attribute].map { (attribute, $0) } }
        guard fields.first == "found", fields.count == RoleAttribute.allCases.count + 2 else {
            let keywords = named.map { $0.0.keyword($0.1) }.joined(separator: " ")
            return [
                Change(
                    "create",
                    statement(
                        "CREATE ROLE \(SQL.identifier(name))" + (keywords.isEmpty ? "" : " " + keywords),
                        withPassword: password != nil))
            ]
        }
        let current = Dictionary(
            uniqueKeysWithValues: RoleAttribute.allCases.enumerated().map { ($0.element, fields[$0.offset + 1] == "t") }
        )
        let differing = named.filter { current[$0.0] != $0.1 }.map { $0.0.keyword($0.1) }.joined(separator: " ")
        var changes: [Change] = []
        if !differing.isEmpty {
            changes.append(
                Change("attributes → \(differing)", statement("ALTER ROLE \(SQL.identifier(name)) \(differing)")))
        }
        if let password, !SCRAM.matches(fields.last ?? "", password: password.reveal()) {
            changes.append(Change("password", statement("ALTER ROLE \(SQL.identifier(name))", withPassword: true)))
        }
        return changes
    }

    /// `sql`, with ` PASSWORD 'verifier'` appended when asked: a new SCRAM verifier, shown as `***`.
    private func statement(_ sql: String, withPassword: Bool = false) -> Action {
        guard withPassword, let password else { return .sql([sql], connection: connection) }
        let verifier = Secret(SCRAM.verifier(for: password.reveal()))
        return .sql([sql + " PASSWORD " + SQL.literal(verifier.reveal())], connection: connection, hiding: [verifier])
    }
}
