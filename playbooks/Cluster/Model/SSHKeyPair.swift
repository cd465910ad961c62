import Foundation
import Keel

/// An ed25519 key pair for SSH between cluster hosts (pgBackRest), made on the controller with `ssh-keygen`.
public struct SSHKeyPair: Sendable {
    /// The OpenSSH private key file's text.
    public var privateKey: Secret
    /// The `ssh-ed25519 BASE64 COMMENT` line.
    public var publicKey: String

    /// A new key pair, generated in a private temporary directory that is removed afterwards.
    static func generate(comment: String) throws -> SSHKeyPair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keel-keygen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key")
        let keygen = Process()
        keygen.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
        keygen.arguments = ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", keyFile.path]
        keygen.standardOutput = FileHandle.nullDevice
        keygen.standardError = FileHandle.nullDevice
        do { try keygen.run() } catch {
            throw ResourceError("cannot run /usr/bin/ssh-keygen (install openssh-client): \(error)")
        }
        keygen.waitUntilExit()
        guard keygen.terminationStatus == 0,
            let privateKey = try? String(contentsOf: keyFile, encoding: .utf8),
            let publicKey = try? String(contentsOf: keyFile.appendingPathExtension("pub"), encoding: .utf8)
        else { throw ResourceError("ssh-keygen failed to make an ed25519 key pair") }
        return SSHKeyPair(
            privateKey: Secret(privateKey), publicKey: publicKey.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
