import Foundation

/// A folder of Keel's on this machine that only this user may use (the keeper's socket, the facts kept between
/// runs): created 0700 when missing, else checked to be a real folder of this user's closed to others — and so is
/// every folder above it, up to `/`: each belongs to this user or root, and none but a sticky one (`/tmp`) lets
/// another account add or rename entries. Otherwise another user could swap a folder on the way (some CI images put
/// `XDG_CACHE_HOME` under `/tmp`).
public enum PrivateFolder {
    /// Makes or checks `path`.
    /// - Throws: ``PrivateFolderError`` naming the folder at fault and what to do.
    public static func prepare(_ path: String) throws(PrivateFolderError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PrivateFolderError("cannot create \(path): \(error.localizedDescription)")
        }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFolderError("\(path) is not a folder")
        }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw PrivateFolderError("\(path) must belong to this user and be closed to others (chmod 700 \(path))")
        }
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw PrivateFolderError("\(folder), above \(path), is not a folder (a link?)")
            }
            let others = status.st_mode & 0o022 != 0 && status.st_mode & S_ISVTX == 0
            guard status.st_uid == geteuid() || status.st_uid == 0, !others else {
                throw PrivateFolderError(
                    "\(folder), above \(path), is another account's or open to others: choose a private folder "
                        + "(XDG_CACHE_HOME)")
            }
            if folder == "/" { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// Opens `path` (in a prepared folder) without following a link there, for reading or with `flags`.
    public static func open(_ path: String, flags: Int32 = O_RDONLY, mode: mode_t = 0o600) -> Int32 {
        Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }
}

/// A folder Keel keeps private is not.
public struct PrivateFolderError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
