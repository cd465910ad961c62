import KeelCore

/// An error from the SSH transport: what failed, on which host, and why.
///
/// A command that exits non-zero is not an error; see ``ExecResult``.
public struct SSHError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure, for code that reacts to it.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The host name could not be resolved or no TCP connection could be made.
        public static let connectFailed = Code("connectFailed")
        /// The connection, handshake, authentication or a command ran past its deadline.
        public static let timedOut = Code("timedOut")
        /// The SSH handshake (key exchange) failed.
        public static let handshakeFailed = Code("handshakeFailed")
        /// The host's key is not in known_hosts and accepting new keys was not allowed.
        public static let hostKeyUnknown = Code("hostKeyUnknown")
        /// The host presented a key that differs from the one recorded in known_hosts.
        public static let hostKeyMismatch = Code("hostKeyMismatch")
        /// known_hosts could not be read or written.
        public static let knownHostsUnusable = Code("knownHostsUnusable")
        /// The server refused every credential offered.
        public static let authenticationFailed = Code("authenticationFailed")
        /// The key is RSA and libssh2 can only sign with SHA-1, which the server refuses.
        public static let rsaSHA1Refused = Code("rsaSHA1Refused")
        /// The private key file could not be decrypted with the passphrase given.
        public static let wrongPassphrase = Code("wrongPassphrase")
        /// The private key file is missing, unreadable or in a format libssh2 does not read.
        public static let keyFileUnusable = Code("keyFileUnusable")
        /// A channel could not be opened or a request on it was refused.
        public static let channelFailed = Code("channelFailed")
        /// A command wrote more output than the limit allowed.
        public static let outputLimitExceeded = Code("outputLimitExceeded")
        /// A file transfer failed.
        public static let transferFailed = Code("transferFailed")
        /// The connection was lost or already closed.
        public static let disconnected = Code("disconnected")

        /// The code called `name`; nil when there is none.
        public init?(named name: String) {
            let all: [Code] = [
                .connectFailed, .timedOut, .handshakeFailed, .hostKeyUnknown, .hostKeyMismatch, .knownHostsUnusable,
                .authenticationFailed, .rsaSHA1Refused, .wrongPassphrase, .keyFileUnusable, .channelFailed,
                .outputLimitExceeded, .transferFailed, .disconnected,
            ]
            guard let code = all.first(where: { $0.name == name }) else { return nil }
            self = code
        }
    }

    public var code: Code
    /// The host as it was addressed (`name` or `[name]:port`).
    public var host: String
    /// What was being done: `connect`, `handshake`, `exec`, `upload` …
    public var operation: String
    /// What went wrong, and what to do about it where that is known.
    public var message: String
    /// libssh2's own error code (negative), when libssh2 reported one.
    public var libssh2Code: Int32?
    /// libssh2's own error text, when libssh2 reported one.
    public var libssh2Message: String?

    public init(
        _ code: Code, host: String, operation: String, message: String,
        libssh2Code: Int32? = nil, libssh2Message: String? = nil
    ) {
        self.code = code
        self.host = host
        self.operation = operation
        self.message = message
        self.libssh2Code = libssh2Code
        self.libssh2Message = libssh2Message
    }

    public var description: String {
        var text = "\(host): \(operation): \(message)"
        if let libssh2Message, !libssh2Message.isEmpty {
            text += " (libssh2: \(libssh2Message)"
            if let libssh2Code { text += ", code \(libssh2Code)" }
            text += ")"
        }
        return text
    }
}
