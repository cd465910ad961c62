import Crypto
import Foundation

/// SCRAM-SHA-256 password verifiers as PostgreSQL stores them (`rolpassword`), so Keel can tell whether a role
/// already has the wanted password without the server ever seeing the plain text.
enum SCRAM {
    /// A new verifier for `password` with a random salt: `SCRAM-SHA-256$4096:salt$StoredKey:ServerKey`.
    static func verifier(for password: String, iterations: Int = 4096) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return verifier(for: password, salt: salt, iterations: iterations)
    }

    static func verifier(for password: String, salt: [UInt8], iterations: Int) -> String {
        let salted = pbkdf2(Array(password.utf8), salt: salt, iterations: iterations)
        let storedKey = Array(SHA256.hash(data: hmac(salted, Array("Client Key".utf8))))
        let serverKey = hmac(salted, Array("Server Key".utf8))
        return "SCRAM-SHA-256$\(iterations):\(Data(salt).base64EncodedString())$"
            + "\(Data(storedKey).base64EncodedString()):\(Data(serverKey).base64EncodedString())"
    }

    /// Iteration counts above this are not recomputed: a verifier read from the server could otherwise hang the
    /// plan (PostgreSQL's default is 4096).
    static let maximumIterations = 1_000_000

    /// Whether `stored` (a `rolpassword` value) is a SCRAM verifier of `password`; false for an iteration count
    /// above ``maximumIterations``, so the password is set again, with Keel's count.
    static func matches(_ stored: String, password: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 3, parts[0] == "SCRAM-SHA-256" else { return false }
        let head = parts[1].split(separator: ":")
        guard head.count == 2, let iterations = Int(head[0]), (1...maximumIterations).contains(iterations),
            let salt = Data(base64Encoded: String(head[1]))
        else {
            return false
        }
        return verifier(for: password, salt: [UInt8](salt), iterations: iterations) == stored
    }

    static func hmac(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    static func pbkdf2(_ password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        var block = hmac(password, salt + [0, 0, 0, 1])
        var result = block
        for _ in 1..<max(1, iterations) {
            block = hmac(password, block)
            for index in result.indices { result[index] ^= block[index] }
        }
        return result
    }
}
