import CLibCrypt
import Crypto
import Keel

/// bcrypt hashes (`$2b$`), made by the controller's crypt(3) with a salt derived from a secret of the cluster's:
/// the same password and salt secret give the same hash on every run, so the files that hold it change only
/// when the password does. The exporters' web configuration and HAProxy's userlist check scrapers against it.
enum Bcrypt {
    /// bcrypt's cost: 2^10 rounds, what the exporters' documentation uses; a check costs the exporter ~50 ms.
    static let cost = 10

    /// The hash of `password`, salted with the first 16 bytes of `saltSecret`'s SHA-256.
    static func hash(_ password: Secret, saltSecret: Secret) -> String {
        let salt = Array(SHA256.hash(data: Array(saltSecret.reveal().utf8)).prefix(16))
        return hash(password.reveal(), setting: "$2b$\(cost)$" + encode(salt))
    }

    /// crypt(3) of `phrase` with `setting` (`$2b$NN$` and 22 characters of salt); fatal when the library
    /// refuses, which only a setting of our own making could cause.
    static func hash(_ phrase: String, setting: String) -> String {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        data.initialize(to: crypt_data())
        guard let result = crypt_r(phrase, setting, data), result.pointee != 0x2A /* "*": refused */ else {
            preconditionFailure("crypt(3) refused the bcrypt setting \(setting)")
        }
        return String(cString: result)
    }

    /// bcrypt's base-64 (its own alphabet, no padding): 16 bytes are 22 characters.
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var text = ""
        var index = 0
        while index < bytes.count {
            let first = Int(bytes[index])
            text.append(alphabet[first >> 2])
            var bits = (first & 0x03) << 4
            guard index + 1 < bytes.count else {
                text.append(alphabet[bits])
                break
            }
            let second = Int(bytes[index + 1])
            text.append(alphabet[bits | second >> 4])
            bits = (second & 0x0f) << 2
            guard index + 2 < bytes.count else {
                text.append(alphabet[bits])
                break
            }
            let third = Int(bytes[index + 2])
            text.append(alphabet[bits | third >> 6])
            text.append(alphabet[third & 0x3f])
            index += 3
        }
        return text
    }
}
