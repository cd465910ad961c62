internal import CLibSSH2

/// Process-wide libssh2 state and helpers shared by the transport's files.
enum LibSSH2 {
    /// `libssh2_init` is not thread-safe; a `static let` runs it exactly once, before any session exists.
    static let initialized: Bool = libssh2_init(0) == 0

    /// libssh2's last error on `session`: its code and text. Read it on the session's own thread.
    static func lastError(_ session: OpaquePointer) -> (code: Int32, message: String) {
        var text: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        let code = libssh2_session_last_error(session, &text, &length, 0)
        let message = text.map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        return (code, message ?? "")
    }

    /// Codes after which the session itself is unusable, not just one channel.
    static func isSessionFatal(_ code: Int32) -> Bool {
        [
            LIBSSH2_ERROR_SOCKET_NONE, LIBSSH2_ERROR_SOCKET_SEND, LIBSSH2_ERROR_SOCKET_RECV,
            LIBSSH2_ERROR_SOCKET_DISCONNECT, LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_BAD_SOCKET,
            LIBSSH2_ERROR_KEX_FAILURE, LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE, LIBSSH2_ERROR_DECRYPT,
            LIBSSH2_ERROR_ENCRYPT, LIBSSH2_ERROR_INVALID_MAC, LIBSSH2_ERROR_PROTO, LIBSSH2_ERROR_TIMEOUT,
        ].contains(code)
    }
}
