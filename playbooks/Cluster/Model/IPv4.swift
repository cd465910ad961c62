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
            let candidate = parse(address)
        else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << UInt32(32 - bits)
        return base & mask == candidate & mask
    }
}
