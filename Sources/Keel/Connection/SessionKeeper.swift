import Foundation
import KeelCore
import KeelSSH

/// The background keel that holds SSH sessions between runs (`ConnectionKeeper`), as the command line reaches it:
/// where this build's keeper for a lifetime listens, serving it, stopping every keeper, and whether a connection
/// came from one.
public enum SessionKeeper {
    /// Serves the keeper's `socket`, holding each session `persist` after its last use, until stopped.
    public static func serve(at socket: String, persist: Duration) async throws {
        try await ConnectionKeeper.serve(at: socket, persist: persist)
    }

    /// The keeper of this keel executable and `persist` seconds (one per build, so a rebuilt keel never talks to
    /// an older one, and one per time: a run asking for less never leaves its sessions to a keeper holding them
    /// longer), started as `keel keep-connections --socket S --persist N` without the environment variables
    /// `withholding` names; nil when `persist` is 0 or this machine has no private folder for it.
    public static func address(persist: Int, withholding: Set<String>) -> KeeperAddress? {
        guard persist > 0, let folder = CacheFolder.path("keeper"),
            let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        else { return nil }
        var status = stat()
        guard stat(executable, &status) == 0 else { return nil }
        let build = sha256Hex(Array("\(executable)\n\(status.st_size)\n\(status.st_mtim.tv_sec)".utf8)).prefix(16)
        let socket = "\(folder)/\(build)-\(persist).sock"
        do {
            return try KeeperAddress(
                socketPath: socket,
                launch: [executable, "keep-connections", "--socket", socket, "--persist", String(persist)],
                withholding: withholding)
        } catch {
            FileHandle.standardError.write(Data("warning: connecting afresh each run: \(error)\n".utf8))
            return nil
        }
    }

    /// Ends (SIGTERM) every keeper of this user: a keel process serving a socket in this user's keeper folder.
    /// Returns how many.
    public static func stopAll() -> Int {
        guard let folder = CacheFolder.path("keeper"),
            let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
        else { return 0 }
        var ended = 0
        for pid in pids.compactMap(Int32.init) where pid != getpid() {
            var status = stat()
            guard stat("/proc/\(pid)", &status) == 0, status.st_uid == geteuid(),
                let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { continue }
            let words = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.count > 3, words[1] == "keep-connections", words[2] == "--socket",
                words[3].hasPrefix(folder + "/")
            else { continue }
            if kill(pid, SIGTERM) == 0 { ended += 1 }
        }
        return ended
    }

    /// Whether `connection` is a session a keeper held from an earlier run.
    public static func wasKept(_ connection: any Transport) -> Bool {
        (connection as? KeptConnection)?.wasKept == true
    }
}
