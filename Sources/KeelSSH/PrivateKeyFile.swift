import Foundation

/// What can be learned about a private key file without its passphrase: its algorithm and whether it is encrypted.
///
/// Used to turn libssh2's terse authentication failures into messages that say what to do.
public struct PrivateKeyFile: Sendable, Equatable {
    public enum Algorithm: String, Sendable {
        case ed25519, ecdsa, rsa, dsa, unknown
    }

    public var algorithm: Algorithm
    public var isEncrypted: Bool

    public init(algorithm: Algorithm, isEncrypted: Bool) {
        self.algorithm = algorithm
        self.isEncrypted = isEncrypted
    }

    /// Reads the key at `path`; nil when the file cannot be read or is not a private key.
    public static func inspect(path: String) -> PrivateKeyFile? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return inspect(text: text)
    }

    /// Inspects the text of a key file in OpenSSH or PEM format.
    public static func inspect(text: String) -> PrivateKeyFile? {
        if text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") { return inspectOpenSSH(text) }
        let encrypted = text.contains("ENCRYPTED")
        if text.contains("-----BEGIN RSA PRIVATE KEY-----") { return .init(algorithm: .rsa, isEncrypted: encrypted) }
        if text.contains("-----BEGIN EC PRIVATE KEY-----") { return .init(algorithm: .ecdsa, isEncrypted: encrypted) }
        if text.contains("-----BEGIN DSA PRIVATE KEY-----") { return .init(algorithm: .dsa, isEncrypted: encrypted) }
        if text.contains("PRIVATE KEY-----") { return .init(algorithm: .unknown, isEncrypted: encrypted) }
        return nil
    }

    /// The OpenSSH format keeps the cipher name and the public key in the clear ahead of the encrypted part.
    private static func inspectOpenSSH(_ text: String) -> PrivateKeyFile? {
        let body = text.split(separator: "\n")
            .filter { !$0.hasPrefix("-----") }
            .joined()
        guard let data = Data(base64Encoded: body) else { return nil }
        var reader = WireReader(bytes: [UInt8](data))
        let magic = Array("openssh-key-v1".utf8) + [0]
        guard reader.take(magic.count) == magic,
            let cipher = reader.string(),
            reader.string() != nil,  // kdf name
            reader.string() != nil,  // kdf options
            reader.uint32() != nil,  // number of keys
            let publicKey = reader.block()
        else { return nil }
        var keyReader = WireReader(bytes: publicKey)
        let type = keyReader.string() ?? ""
        let algorithm: Algorithm =
            switch type {
            case "ssh-ed25519": .ed25519
            case "ssh-rsa": .rsa
            case "ssh-dss": .dsa
            case _ where type.hasPrefix("ecdsa-"): .ecdsa
            default: .unknown
            }
        return .init(algorithm: algorithm, isEncrypted: cipher != "none")
    }
}

/// Reads the SSH wire encoding: big-endian uint32 lengths followed by bytes.
struct WireReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint32() -> UInt32? {
        take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    mutating func block() -> [UInt8]? {
        uint32().flatMap { take(Int($0)) }
    }

    mutating func string() -> String? {
        block().map { String(decoding: $0, as: UTF8.self) }
    }
}
