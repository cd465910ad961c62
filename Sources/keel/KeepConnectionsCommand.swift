import ArgumentParser
import Foundation
import Keel
import KeelSSH

/// The background keel that holds SSH sessions between runs (``ConnectionKeeper``), started by the first run that
/// needs it; `keel keep-connections --stop` ends this user's keepers and the sessions they hold.
struct KeepConnectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keep-connections",
        abstract: "Hold SSH sessions open between runs (started by keel itself); --stop ends them.")

    @Option(help: "The socket to serve (keel itself gives it).")
    var socket: String?

    @Option(help: "Seconds a session stays open after its last use (keel itself gives it).")
    var persist: Int?

    @Flag(help: "End this user's keepers, and with them every session they hold.")
    var stop = false

    func validate() throws {
        guard stop != (socket != nil && persist != nil) else {
            throw ValidationError("give --stop (the keepers are started by keel itself)")
        }
    }

    func run() async throws {
        if stop {
            let ended = Self.stopKeepers()
            print(ended == 0 ? "no keeper runs" : "\(ended) keeper(s) ended, with the sessions they held")
            return
        }
        guard let socket, let persist else { return }
        // It outlives the command that started it: it must hold no folder busy (a mount the lab removes).
        _ = FileManager.default.changeCurrentDirectoryPath("/")
        try await ConnectionKeeper.serve(at: socket, persist: .seconds(persist))
    }

    /// Ends (SIGTERM) every keeper of this user: a keel process serving a socket in this user's keeper folder.
    /// Returns how many.
    static func stopKeepers() -> Int {
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

    /// The keeper of this keel executable and `persist` (one per build, so a rebuilt keel never talks to an older
    /// one, and one per time: a run asking for less never leaves its sessions to a keeper holding them longer),
    /// holding each session for `persist` seconds; nil when `persist` is 0 or this machine has no private folder
    /// for it.
    static func address(persist: Int) -> KeeperAddress? {
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
                withholding: [ConnectionArguments.passwordVariable, ConnectionArguments.passphraseVariable])
        } catch {
            FileHandle.standardError.write(Data("warning: connecting afresh each run: \(error)\n".utf8))
            return nil
        }
    }
}
