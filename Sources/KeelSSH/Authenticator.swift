internal import CLibSSH2
import KeelCore

/// Proves the user's identity with each configured credential in turn, and explains a refusal.
enum Authenticator {
    static func authenticate(session: OpaquePointer, configuration: SSHConfiguration) throws(SSHError) {
        var failures: [SSHError] = []
        for credential in configuration.credentials {
            do {
                try attempt(credential, session: session, configuration: configuration)
                return
            } catch {
                if LibSSH2.isSessionFatal(error.libssh2Code ?? 0) { throw error }
                failures.append(error)
            }
        }
        guard var error = failures.first else {
            throw SSHError(
                .authenticationFailed, host: configuration.displayHost, operation: "authenticate",
                message: "no credential to offer: give a private key file, run an ssh-agent, or set a password")
        }
        if failures.count > 1 {
            error.message = failures.map(\.message).joined(separator: "; ")
        }
        throw error
    }

    private static func attempt(
        _ credential: SSHConfiguration.Credential, session: OpaquePointer, configuration: SSHConfiguration
    ) throws(SSHError) {
        let user = configuration.user
        switch credential {
        case .privateKey(let path, let passphrase):
            let rc = keel_userauth_publickey_fromfile(session, user, path, passphrase?.reveal())
            guard rc != 0 else { return }
            throw keyFailure(rc, path: path, passphrase: passphrase, session: session, configuration: configuration)
        case .agent(let socket):
            try authenticateWithAgent(socket: socket, session: session, configuration: configuration)
        case .password(let password):
            let rc = keel_userauth_password(session, user, password.reveal())
            guard rc != 0 else { return }
            let (code, message) = LibSSH2.lastError(session)
            throw SSHError(
                .authenticationFailed, host: configuration.displayHost, operation: "authenticate",
                message: "the server refused the password for user \(user)", libssh2Code: code, libssh2Message: message)
        }
    }

    /// Turns libssh2's few failure codes into the cause a person can act on.
    private static func keyFailure(
        _ rc: Int32, path: String, passphrase: Secret?, session: OpaquePointer, configuration: SSHConfiguration
    ) -> SSHError {
        let (code, message) = LibSSH2.lastError(session)
        let host = configuration.displayHost
        func error(_ kind: SSHError.Code, _ text: String) -> SSHError {
            SSHError(
                kind, host: host, operation: "authenticate", message: text, libssh2Code: code, libssh2Message: message)
        }
        guard let key = PrivateKeyFile.inspect(path: path) else {
            return error(
                .keyFileUnusable,
                "cannot read private key \(path): the file is missing, unreadable or not a private key")
        }
        if rc == LIBSSH2_ERROR_FILE || rc == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED {
            if key.isEncrypted {
                return passphrase == nil
                    ? error(
                        .wrongPassphrase,
                        "private key \(path) is encrypted and no passphrase was given: set KEEL_SSH_PASSPHRASE or run in a terminal to be asked"
                    )
                    : error(.wrongPassphrase, "wrong passphrase for private key \(path)")
            }
            return error(
                .keyFileUnusable,
                "libssh2 cannot load private key \(path) (\(key.algorithm.rawValue)); use an OpenSSH-format ed25519 key"
            )
        }
        if key.algorithm == .rsa {
            return error(
                .rsaSHA1Refused,
                """
                the server refused RSA key \(path): libssh2 1.10 (Debian 12) can sign RSA only with ssh-rsa (SHA-1), \
                which OpenSSH 8.8 and later refuse, and it cannot sign rsa-sha2-256/512. Use an ed25519 key \
                (`ssh-keygen -t ed25519`) and add its public key to the server's authorized_keys
                """)
        }
        return error(
            .authenticationFailed,
            "the server refused key \(path) for user \(configuration.user): is its public key in that user's authorized_keys?"
        )
    }

    private static func authenticateWithAgent(
        socket: String, session: OpaquePointer, configuration: SSHConfiguration
    ) throws(SSHError) {
        let host = configuration.displayHost
        guard let agent = libssh2_agent_init(session) else {
            throw SSHError(
                .authenticationFailed, host: host, operation: "authenticate",
                message: "cannot start the ssh-agent client")
        }
        defer { libssh2_agent_free(agent) }
        libssh2_agent_set_identity_path(agent, socket)
        guard libssh2_agent_connect(agent) == 0 else {
            throw SSHError(
                .authenticationFailed, host: host, operation: "authenticate",
                message: "no ssh-agent answers at \(socket) (SSH_AUTH_SOCK)")
        }
        defer { libssh2_agent_disconnect(agent) }
        guard libssh2_agent_list_identities(agent) == 0 else {
            throw SSHError(
                .authenticationFailed, host: host, operation: "authenticate",
                message: "the ssh-agent did not list its keys")
        }
        var identity: UnsafeMutablePointer<libssh2_agent_publickey>?
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>?
        var tried = 0
        while libssh2_agent_get_identity(agent, &identity, previous) == 0, let current = identity {
            tried += 1
            if libssh2_agent_userauth(agent, configuration.user, current) == 0 { return }
            previous = current
        }
        throw SSHError(
            .authenticationFailed, host: host, operation: "authenticate",
            message:
                "the server refused all \(tried) keys held by the ssh-agent for user \(configuration.user) (RSA keys cannot work with libssh2 1.10; use ed25519)"
        )
    }
}
