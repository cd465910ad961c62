import Crypto
import Foundation

/// The SHA-256 digest of `bytes` as 64 lowercase hex digits, as `sha256sum` prints it: what Keel compares with a
/// host's file without sending it, and with the digest it pins for software it carries.
public func sha256Hex(_ bytes: some DataProtocol) -> String {
    SHA256.hash(data: bytes).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
