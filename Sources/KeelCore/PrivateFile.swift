import Foundation

/// A file only this account may read, replaced whole: written 0600 to a new staging file beside it (never through
/// a link), flushed to disk, then renamed over it, so that a reader finds the old text or the new one.
public enum PrivateFile {
    /// Replaces the file at `path` with `bytes`.
    /// - Throws: ``PrivateFileError`` naming the file that could not be written and why.
    public static func replace(_ path: String, with bytes: [UInt8]) throws(PrivateFileError) {
        let staging = path + ".tmp"
        unlink(staging)
        let fd = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PrivateFileError("cannot write \(staging): \(String(cString: strerror(errno)))") }
        let written = write(fd, bytes, bytes.count)
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(staging, path) == 0 else {
            unlink(staging)
            throw PrivateFileError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// A private file could not be written.
public struct PrivateFileError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
