import ArgumentParser
import Foundation
import Keel
import KeelSSH

/// The background keel that holds SSH sessions between runs (``ConnectionKeeper``), started by the first run that
/// needs it; not for people to call.
struct KeepConnectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keep-connections", abstract: "Hold SSH sessions open between runs (started by keel itself).",
        shouldDisplay: false)

    @Option(help: "The socket to serve.")
    var socket: String

    @Option(help: "Seconds a session stays open after its last use.")
    var persist: Int

    func run() async throws {
        // It outlives the command that started it: it must hold no folder busy (a mount the lab removes).
        _ = FileManager.default.changeCurrentDirectoryPath("/")
        try await ConnectionKeeper.serve(at: socket, persist: .seconds(persist))
    }

    /// The keeper of this keel executable (one per build, so a rebuilt keel never talks to an older one), holding
    /// each session for `persist` seconds; nil when `persist` is 0 or this machine has no private folder for it.
    static func address(persist: Int) -> KeeperAddress? {
        guard persist > 0, let folder = CacheFolder.path("keeper"),
            let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        else { return nil }
        var status = stat()
        guard stat(executable, &status) == 0 else { return nil }
        let build = sha256Hex(Array("\(executable)\n\(status.st_size)\n\(status.st_mtim.tv_sec)".utf8)).prefix(16)
        let socket = "\(folder)/\(build).sock"
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
