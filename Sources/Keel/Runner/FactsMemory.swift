import Foundation

/// The facts each host showed in its last run, kept on this machine: the next run plans its plays' probes from them
/// and reads them ahead while it gathers the facts afresh, so that a run that changes nothing waits for one round trip
/// per host less. A play takes what was read only when its fresh plan probes exactly the same (``ProbePrefetch``):
/// facts that changed since cost a read, never a wrong plan.
///
/// One JSON file per host (named by a digest of its name, user, address and port), 0600 in a 0700 folder: facts
/// are no secrets, but nobody else need know the hosts.
public struct FactsMemory: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$XDG_CACHE_HOME/keel/facts`, else `~/.cache/keel/facts`; nil without a home.
    public static var standard: FactsMemory? { CacheFolder.path("facts").map(FactsMemory.init) }

    /// What `target` showed last, if this machine remembers it: read only from a private folder
    /// (``PrivateFolder``), never through a link.
    func facts(of target: HostTarget) -> Facts? {
        guard (try? PrivateFolder.prepare(directory)) != nil else { return nil }
        let fd = PrivateFolder.open(path(of: target))
        guard fd >= 0 else { return nil }
        let data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
        return try? JSONDecoder().decode(Facts.self, from: data)
    }

    /// Keeps `facts` for `target`'s next run; a folder or file that cannot be written is left as it is (the next
    /// run reads its probes one round trip later).
    func remember(_ facts: Facts, of target: HostTarget) {
        guard let data = try? JSONEncoder().encode(facts), (try? PrivateFolder.prepare(directory)) != nil else {
            return
        }
        let path = path(of: target)
        let staging = path + ".\(getpid())"
        guard FileManager.default.createFile(atPath: staging, contents: data, attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(staging, path) != 0 { unlink(staging) }
    }

    private func path(of target: HostTarget) -> String {
        let identity = "\(target.name)\n\(target.user)@\(target.address):\(target.port)"
        return directory + "/" + sha256Hex(Array(identity.utf8)).prefix(32) + ".json"
    }
}
