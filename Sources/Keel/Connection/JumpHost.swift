/// A host an SSH connection goes through to reach its target (OpenSSH's ProxyJump): `[user@]host[:port]`.
public struct JumpHost: Sendable, Hashable, CustomStringConvertible {
    /// The login on the jump host; nil for the target's own.
    public var user: String?
    public var host: String
    public var port: Int

    public init(user: String? = nil, host: String, port: Int = 22) {
        self.user = user
        self.host = host
        self.port = port
    }

    /// Reads `[user@]host[:port]`, an IPv6 address in brackets (`[fd00::1]:2222`); nil when it is not one.
    public init?(_ text: String) {
        var rest = Substring(text)
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            if user?.isEmpty == true { return nil }
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
            rest = rest[rest.index(after: rest.startIndex)..<close]
        } else if let colon = rest.firstIndex(of: ":") {
            portText = rest[rest.index(after: colon)...]
            rest = rest[..<colon]
        }
        guard !rest.isEmpty, !rest.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        host = String(rest)
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { return nil }
            self.port = port
        } else {
            port = 22
        }
    }

    /// Reads ProxyJump's comma-separated list; nil when an entry is not a jump host.
    static func list(_ text: String) -> [JumpHost]? {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { JumpHost(String($0)) }
        return entries.contains(nil) ? nil : entries.compactMap(\.self)
    }

    public var description: String {
        let address = host.contains(":") ? "[\(host)]" : host
        return (user.map { "\($0)@" } ?? "") + address + (port == 22 ? "" : ":\(port)")
    }
}
