import Foundation
import Keel

/// What each value of the model may hold, judged by where it lands: names become systemd units, etcd keys, file
/// names and shell words; paths and versions reach root's shell; SQL names and passwords reach psql, environment
/// files and PgBouncer's userlist. A value outside its kind stops the run with its file and line, before any host
/// is touched.
extension ClusterModel {
    /// The kinds of values, each with the characters its consumers all accept.
    enum ValueKind {
        /// A cluster, stanza or host name: letters, digits, `_ . -`, starting with a letter or digit, ≤ 63 bytes.
        case name
        /// A network interface, as Linux names them: ≤ 15 bytes of letters, digits, `_ . -`.
        case interface
        /// A release such as 4.1.5.
        case version
        /// An absolute path of letters, digits, `_ . / + -`, without `..`.
        case path
        /// A ``path`` Keel may delete whole (a data directory: remove-cluster, `remove-node --wipe-data`, an upgrade's
        /// cleanup): two levels deep at least, and neither a system directory nor inside one.
        case deletablePath
        /// A host address: an IPv4 address or a DNS name.
        case address
        /// A PostgreSQL role, database or extension name: ≤ 63 bytes, without control characters.
        case sqlName
        /// A role of the cluster itself (superuser, replication, REST API): letters, digits, `_ . -`, starting
        /// with a letter or `_`, ≤ 63 bytes. Each lands in pg_hba, patroni.yml, libpq connection strings,
        /// PgBouncer's `admin_users` and shell messages, which all read such a name as one word.
        case roleName
        /// Free text on one line (a pool's options, a timer's schedule): no control characters.
        case line
        /// A password: printable ASCII. PostgreSQL normalises other passwords (SASLprep) before hashing them, which
        /// Keel's verifiers do not, so a role's password would never be seen as set.
        case password
        /// One pg_hba field: no spaces, quotes or control characters.
        case hbaField

        /// Whether `text` holds a control or format character (newlines, escapes, bidirectional overrides).
        static func hasControls(_ text: String) -> Bool { terminalSafe(text) != text }

        private static func isPlain(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }

        /// Throws when `value`, the inventory's `what` at `origin`, is not of this kind: secrets and free text are
        /// not shown; names are, with control characters written out, and cut short.
        func check(_ value: String, named what: String, at origin: SourceLocation?) throws(InventoryError) {
            guard let problem = problem(with: value) else { return }
            let shown = self == .line || self == .password ? "" : " " + quotedForDisplay(value)
            throw InventoryError("\(what)\(shown) cannot be used: \(problem)", at: origin)
        }

        /// Why `value` is not of this kind, or nil when it is.
        func problem(with value: String) -> String? {
            func only(_ extra: String) -> Bool {
                value.utf8.allSatisfy { Self.isPlain($0) || extra.utf8.contains($0) }
            }
            var controls: Bool { Self.hasControls(value) }
            switch self {
            case .name:
                guard let first = value.utf8.first, Self.isPlain(first), only("_.-"),
                    value.utf8.count <= 63
                else { return "only letters, digits, _ . - (starting with a letter or digit, at most 63) are allowed" }
            case .interface:
                guard !value.isEmpty, value.utf8.count <= 15, only("_.-"), !value.hasPrefix("-") else {
                    return "an interface name has at most 15 letters, digits, _ . -"
                }
            case .version:
                guard
                    value.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({
                        !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
                    })
                else { return "a release is numbers joined by dots, such as 4.1.5" }
            case .path, .deletablePath:
                guard value.hasPrefix("/"), only("_./+-"), !value.split(separator: "/").contains("..") else {
                    return "give an absolute path of letters, digits, _ . / + - (no spaces, quotes or ..)"
                }
                let components = value.split(separator: "/").filter { $0 != "." }
                let system = ["etc", "usr", "bin", "sbin", "lib", "lib64", "boot", "proc", "sys", "dev", "run"]
                if self == .deletablePath,
                    components.count < 2 || system.contains(String(components[0]))
                        || ["var/lib", "var/log", "var/cache", "var/spool", "var/tmp", "home/postgres"].contains(
                            components.prefix(2).joined(separator: "/")) && components.count == 2
                {
                    return "Keel deletes this directory whole when the cluster or a member goes: give one of its own, "
                        + "two levels deep at least and outside the system's (such as /var/lib/postgresql/15/main)"
                }
            case .address:
                guard !value.isEmpty, only(".-"), !value.hasPrefix("-"), value.utf8.count <= 253 else {
                    return "an address is an IPv4 address or a DNS name"
                }
            case .sqlName:
                guard !value.isEmpty, value.utf8.count <= 63, !controls else {
                    return "a PostgreSQL name has 1 to 63 bytes and no control characters (such as a newline)"
                }
            case .roleName:
                let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
                guard let first = value.utf8.first, first == UInt8(ascii: "_") || Self.isPlain(first),
                    !digits.contains(first), only("_.-"), value.utf8.count <= 63
                else {
                    return "a role of the cluster has letters, digits, _ . - (starting with a letter or _, at most 63)"
                }
            case .line:
                guard !controls else { return "it must stay on one line: no control characters (such as a newline)" }
            case .password:
                guard value.unicodeScalars.allSatisfy({ (0x20...0x7e).contains($0.value) }) else {
                    return "a password has printable ASCII characters only (no newline, no accented letters)"
                }
            case .hbaField:
                guard !value.isEmpty, !controls, !value.contains(where: { $0.isWhitespace || "'\"#".contains($0) })
                else { return "a pg_hba field has no spaces, quotes, # or control characters" }
            }
            return nil
        }
    }

    /// Checks the hosts' names and addresses, and the VIP's interfaces (given, or from a host's facts); the
    /// inventory's own values are checked as they are read (``VariableReader/string(_:_:)``).
    func checkValues(inventory: Inventory) throws(InventoryError) {
        for host in allHosts {
            let location = inventory.hosts[host]?.location ?? SourceLocation(file: inventory.path, line: 1)
            try ValueKind.name.check(host, named: "the host name", at: location)
            try ValueKind.address.check(address(of: host), named: "the address of \(host)", at: location)
        }
        for (host, interface) in (vip?.interfaces ?? [:]).sorted(by: { $0.key < $1.key }) {
            let origin = VariableReader(host: host, variables: inventory.variables(for: host)).origin(.vipInterface)
            try ValueKind.interface.check(
                interface, named: ClusterVariable.vipInterface.rawValue,
                at: origin ?? SourceLocation(file: inventory.path, line: 1))
        }
    }
}
