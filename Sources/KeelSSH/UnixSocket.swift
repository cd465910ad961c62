internal import CLibSSH2
import Foundation
import KeelCore

/// The unix stream sockets between keel and its ``ConnectionKeeper``, kept to their owner: the socket lives in a
/// folder only the user can enter, and each end checks the other runs as the same user.
enum UnixSocket {
    /// Creates `path` (and its parents) as a folder only this user may use, or checks that it is one
    /// (``PrivateFolder``).
    static func prepareFolder(_ path: String) throws {
        do {
            try PrivateFolder.prepare(path)
        } catch {
            throw KeeperError(error.description)
        }
    }

    /// A socket listening at `path` (mode 0600), replacing a socket file nobody listens on any more.
    static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw KeeperError("cannot create a socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        let mask = umask(0o177)
        let bound = withAddress(path) { bind(fd, $0, $1) }
        umask(mask)
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw KeeperError("cannot listen at \(path): \(reason)")
        }
        return fd
    }

    /// A socket connected to `path`, or nil when nothing listens there.
    static func connect(to path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard withAddress(path, { Glibc.connect(fd, $0, $1) }) == 0, peerIsThisUser(fd) else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether the process at the other end of `fd` runs as this process's user.
    static func peerIsThisUser(_ fd: Int32) -> Bool {
        // struct ucred: pid, uid, gid (Swift does not import it).
        var credentials: [UInt32] = [0, 0, 0]
        var length = socklen_t(12)
        return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 && length == 12
            && credentials[1] == geteuid()
    }

    /// The longest path a unix socket address holds.
    static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathLength else {
            errno = ENAMETOOLONG
            return -1
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Why the connection keeper cannot be used or started.
struct KeeperError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
