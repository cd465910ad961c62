internal import CLibSSH2
import Foundation

/// Checks the key a server presented against an OpenSSH known_hosts file (plain and hashed entries).
///
/// Fails closed: an unknown key is refused unless the policy is ``SSHConfiguration/HostKeyPolicy/acceptNew``,
/// and a changed key is always refused.
enum HostKeyVerifier {
    /// The host key algorithms offered, ed25519 first: libssh2 1.10 would prefer ECDSA, and a known_hosts file
    /// written by OpenSSH then reads as "not found".
    static let preference = "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,ssh-rsa"

    /// A host key as the server presented it.
    struct HostKey: Sendable, Equatable {
        var bytes: [UInt8]
        var type: Int32
    }

    /// Verifies the key the server of `session` presented; returns it, to be checked again (``stillKnown(_:_:)``).
    @discardableResult
    static func verify(session: OpaquePointer, configuration: SSHConfiguration) throws(SSHError) -> HostKey {
        let host = configuration.displayHost
        var keyLength = 0
        var keyType: Int32 = 0
        guard let key = libssh2_session_hostkey(session, &keyLength, &keyType) else {
            throw SSHError(.handshakeFailed, host: host, operation: "host key", message: "the server sent no host key")
        }
        let hostKey = HostKey(bytes: Array(UnsafeRawBufferPointer(start: key, count: keyLength)), type: keyType)
        let algorithm = algorithmName(keyType)
        let fingerprint = self.fingerprint(session)
        let path = configuration.knownHostsPath
        switch try check(hostKey, configuration, session: session) {
        case LIBSSH2_KNOWNHOST_CHECK_MATCH:
            return hostKey
        case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
            throw SSHError(
                .hostKeyMismatch, host: host, operation: "host key",
                message: """
                    HOST KEY CHANGED: the \(algorithm) key offered (\(fingerprint)) differs from the one recorded in \
                    \(path). This may be an attack; if the host was reinstalled, remove its old entry with \
                    `ssh-keygen -R '\(host)' -f \(path)` and connect again.
                    """)
        case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND where configuration.hostKeyPolicy == .acceptNew:
            try record(
                line: "\(host) \(algorithm) \(Data(hostKey.bytes).base64EncodedString())\n", path: path, host: host)
            return hostKey
        default:
            throw SSHError(
                .hostKeyUnknown, host: host, operation: "host key",
                message: """
                    the \(algorithm) host key \(fingerprint) is not in \(path); verify it and add it (e.g. \
                    `ssh-keyscan -p \(configuration.port) -t ed25519 \(configuration.host) >> \(path)`), or allow new \
                    keys with --accept-new-host-keys
                    """)
        }
    }

    /// Whether known_hosts holds `key` for the host of `configuration` now: a session kept between runs is handed
    /// out again only then (an entry removed or replaced since it was verified ends it).
    static func stillKnown(_ key: HostKey, _ configuration: SSHConfiguration) -> Bool {
        guard let session = keel_session_init() else { return false }
        defer { libssh2_session_free(session) }
        return (try? check(key, configuration, session: session)) == LIBSSH2_KNOWNHOST_CHECK_MATCH
    }

    /// libssh2's verdict on `key` against known_hosts (a `LIBSSH2_KNOWNHOST_CHECK_` value); `session` only
    /// serves libssh2's allocations and errors.
    private static func check(_ key: HostKey, _ configuration: SSHConfiguration, session: OpaquePointer)
        throws(SSHError) -> Int32
    {
        let host = configuration.displayHost
        guard let knownHosts = libssh2_knownhost_init(session) else {
            throw SSHError(.knownHostsUnusable, host: host, operation: "host key", message: "out of memory")
        }
        defer { libssh2_knownhost_free(knownHosts) }
        let path = configuration.knownHostsPath
        if FileManager.default.fileExists(atPath: path), keel_knownhost_readfile(knownHosts, path) < 0 {
            let (code, message) = LibSSH2.lastError(session)
            throw SSHError(
                .knownHostsUnusable, host: host, operation: "host key",
                message: "cannot read known_hosts file \(path)", libssh2Code: code, libssh2Message: message)
        }
        // Off port 22 only the `[host]:port` entry counts (port -1 makes libssh2 compare that name alone): given
        // the port, it would also try the plain host's entry, whose match hides a changed key on this port.
        return key.bytes.withUnsafeBytes { bytes in
            keel_knownhost_checkp(
                knownHosts, host, configuration.port == 22 ? 22 : -1,
                bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, knownHostKeyType(key.type))
        }
    }

    /// The key's SHA-256 fingerprint as `ssh-keygen -l` prints it.
    private static func fingerprint(_ session: OpaquePointer) -> String {
        guard let hash = libssh2_hostkey_hash(session, LIBSSH2_HOSTKEY_HASH_SHA256) else { return "(no fingerprint)" }
        let digest = Data(UnsafeRawBufferPointer(start: hash, count: 32))
        return "SHA256:" + digest.base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// Appends one entry under an exclusive lock, so hosts accepted in parallel do not interleave lines; on a new
    /// line even when the file's last one lacks its newline. A lock still held after five seconds (a stuck NFS
    /// lock, say) fails the connection rather than hanging it.
    private static func record(line: String, path: String, host: String) throws(SSHError) {
        func failure(_ reason: String) -> SSHError {
            SSHError(
                .knownHostsUnusable, host: host, operation: "host key",
                message: "cannot record the new key in \(path): \(reason)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(fd) }
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            attempts += 1
            guard errno == EWOULDBLOCK, attempts < 50 else { throw failure("the file stays locked by another process") }
            usleep(100_000)
        }
        var text = line
        let size = lseek(fd, 0, SEEK_END)
        var last: UInt8 = 0
        if size > 0, pread(fd, &last, 1, size - 1) == 1, last != UInt8(ascii: "\n") { text = "\n" + text }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw failure(String(cString: strerror(errno))) }
    }

    private static func algorithmName(_ type: Int32) -> String {
        switch type {
        case LIBSSH2_HOSTKEY_TYPE_ED25519: "ssh-ed25519"
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: "ecdsa-sha2-nistp256"
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: "ecdsa-sha2-nistp384"
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: "ecdsa-sha2-nistp521"
        case LIBSSH2_HOSTKEY_TYPE_RSA: "ssh-rsa"
        case LIBSSH2_HOSTKEY_TYPE_DSS: "ssh-dss"
        default: "unknown"
        }
    }

    private static func knownHostKeyType(_ type: Int32) -> Int32 {
        switch type {
        case LIBSSH2_HOSTKEY_TYPE_ED25519: LIBSSH2_KNOWNHOST_KEY_ED25519
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: LIBSSH2_KNOWNHOST_KEY_ECDSA_256
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: LIBSSH2_KNOWNHOST_KEY_ECDSA_384
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: LIBSSH2_KNOWNHOST_KEY_ECDSA_521
        case LIBSSH2_HOSTKEY_TYPE_RSA: LIBSSH2_KNOWNHOST_KEY_SSHRSA
        case LIBSSH2_HOSTKEY_TYPE_DSS: LIBSSH2_KNOWNHOST_KEY_SSHDSS
        default: LIBSSH2_KNOWNHOST_KEY_UNKNOWN
        }
    }
}
