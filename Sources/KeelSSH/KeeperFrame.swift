import Foundation

/// One message between a ``KeptConnection`` and the ``ConnectionKeeper`` on a unix socket: a kind byte, the
/// payload's length (4 bytes, big-endian), the payload.
///
/// A lease socket carries `lease` → `leased` or `failure`, then stays open while the client holds the session. A
/// run socket carries `run` and `input` → `output`…, then `stdout`, `stderr`, `exit`, or a `failure`; `cancel` from
/// the client cuts the command short, and a client that goes away cancels it too.
struct KeeperFrame: Sendable {
    enum Kind: UInt8, Sendable {
        case lease = 1, leased, run, input, cancel, output, stdout, stderr, exit, failure
    }

    var kind: Kind
    var payload: [UInt8]

    init(_ kind: Kind, _ payload: [UInt8] = []) {
        self.kind = kind
        self.payload = payload
    }

    init<Message: Encodable>(_ kind: Kind, json message: Message) throws {
        self.init(kind, Array(try JSONEncoder().encode(message)))
    }

    func decode<Message: Decodable>(_ type: Message.Type) throws -> Message {
        try JSONDecoder().decode(type, from: Data(payload))
    }

    /// The largest payload accepted: a command's whole output (64 MiB at most) with room to spare.
    static let maxPayload = 80 << 20

    /// Writes the whole frame; false when the peer is gone.
    func write(to socket: Int32) -> Bool {
        let count = UInt32(payload.count)
        let header = [
            kind.rawValue, UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff),
            UInt8(count & 0xff),
        ]
        return Self.send(header, to: socket) && Self.send(payload, to: socket)
    }

    /// Reads one frame; nil at the end of the stream, on an error or on a frame that is not one.
    static func read(from socket: Int32) -> KeeperFrame? {
        guard let header = receive(5, from: socket), let kind = Kind(rawValue: header[0]) else { return nil }
        let count = header[1...4].reduce(0) { $0 << 8 | Int($1) }
        guard count <= maxPayload, let payload = receive(count, from: socket) else { return nil }
        return KeeperFrame(kind, payload)
    }

    private static func send(_ bytes: [UInt8], to socket: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func receive(_ count: Int, from socket: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes[offset...].withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            offset += got
        }
        return bytes
    }
}
