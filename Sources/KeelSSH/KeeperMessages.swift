import Foundation
import KeelCore

/// What a client asks the ``ConnectionKeeper`` to hold: the session of inventory host `name`, opened with
/// `configuration`. Two hosts of an inventory never share a session, even at one address.
struct LeaseRequest: Codable, Sendable {
    var name: String
    var configuration: WireConfiguration

    /// The session's identity among those kept: everything that opens it, credentials included.
    var key: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}

/// ``SSHConfiguration`` on the keeper's socket. Secrets travel revealed: the socket is the user's own (a 0700
/// folder, the peer's uid checked), as an ssh-agent's is.
struct WireConfiguration: Codable, Sendable {
    struct Credential: Codable, Sendable {
        var kind: String
        var path: String?
        var secret: String?
    }

    var host: String
    var port: Int
    var user: String
    var credentials: [Credential]
    var knownHostsPath: String
    var acceptNewHostKeys: Bool
    var connectTimeoutMilliseconds: Int64
    var keepaliveInterval: Int
    var maxChannels: Int
    var jumpHosts: [WireConfiguration]

    init(_ configuration: SSHConfiguration) {
        host = configuration.host
        port = configuration.port
        user = configuration.user
        credentials = configuration.credentials.map { credential in
            switch credential {
            case .privateKey(let path, let passphrase):
                Credential(kind: "key", path: path, secret: passphrase?.reveal())
            case .agent(let socket): Credential(kind: "agent", path: socket)
            case .password(let password): Credential(kind: "password", secret: password.reveal())
            }
        }
        knownHostsPath = configuration.knownHostsPath
        acceptNewHostKeys = configuration.hostKeyPolicy == .acceptNew
        connectTimeoutMilliseconds = Int64(configuration.connectTimeout / .milliseconds(1))
        keepaliveInterval = configuration.keepaliveInterval
        maxChannels = configuration.maxChannels
        jumpHosts = configuration.jumpHosts.map(WireConfiguration.init)
    }

    var configuration: SSHConfiguration {
        SSHConfiguration(
            host: host, port: port, user: user,
            credentials: credentials.compactMap { credential in
                switch credential.kind {
                case "key":
                    credential.path.map { .privateKey(path: $0, passphrase: credential.secret.map(Secret.init)) }
                case "agent": credential.path.map { .agent(socket: $0) }
                case "password": credential.secret.map { .password(Secret($0)) }
                default: nil
                }
            },
            knownHostsPath: knownHostsPath, hostKeyPolicy: acceptNewHostKeys ? .acceptNew : .strict,
            connectTimeout: .milliseconds(connectTimeoutMilliseconds), keepaliveInterval: keepaliveInterval,
            maxChannels: maxChannels, jumpHosts: jumpHosts.map(\.configuration))
    }
}

extension WireConfiguration {
    /// Refuses a relative known_hosts or key path: the keeper runs from `/`, where it would name another file than
    /// the client meant (an empty known_hosts there would take any key as new).
    func refuseRelativePaths() throws(KeeperError) {
        let paths = [knownHostsPath] + credentials.compactMap(\.path)
        if let relative = paths.first(where: { !$0.hasPrefix("/") }) {
            throw KeeperError("the keeper takes absolute paths only, not \(relative)")
        }
        for jump in jumpHosts { try jump.refuseRelativePaths() }
    }
}

/// The keeper's answer to a lease: the session's id, and whether it was kept from before (no login this time).
struct LeaseGrant: Codable, Sendable {
    var session: String
    var kept: Bool
}

/// A command for a leased session; its standard input follows in an `input` frame.
struct RunRequest: Codable, Sendable {
    var session: String
    var command: String
    var becomeUser: String?
    var timeoutMilliseconds: Int64?
    var outputLimit: Int
    var observe: Bool
}

/// How a command ended (its output came before, in `stdout` and `stderr` frames).
struct ExitMessage: Codable, Sendable {
    var exitStatus: Int32
    var signal: String?
}

/// An error, as the client is to throw it: an ``SSHError``, or the cancellation it asked for.
struct FailureMessage: Codable, Sendable {
    var code: String
    var host: String
    var operation: String
    var message: String
    var libssh2Code: Int32?
    var libssh2Message: String?

    static let cancelled = "cancelled"

    init(_ error: any Error, host: String) {
        if let error = error as? SSHError {
            code = error.code.name
            self.host = error.host
            operation = error.operation
            message = error.message
            libssh2Code = error.libssh2Code
            libssh2Message = error.libssh2Message
        } else {
            code = error is CancellationError ? Self.cancelled : SSHError.Code.disconnected.name
            self.host = host
            operation = "exec"
            message = "\(error)"
        }
    }

    /// The error to throw; `host` names the host where the keeper could not.
    func error(host fallback: String) -> any Error {
        guard code != Self.cancelled else { return CancellationError() }
        return SSHError(
            SSHError.Code(named: code) ?? .disconnected, host: host.isEmpty ? fallback : host, operation: operation,
            message: message,
            libssh2Code: libssh2Code, libssh2Message: libssh2Message)
    }
}
