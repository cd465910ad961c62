import ArgumentParser
import Foundation
import Keel

/// The background keel that holds SSH sessions between runs (``SessionKeeper``), started by the first run that
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
            let ended = SessionKeeper.stopAll()
            print(ended == 0 ? "no keeper runs" : "\(ended) keeper(s) ended, with the sessions they held")
            return
        }
        guard let socket, let persist else { return }
        // It outlives the command that started it: it must hold no folder busy (a mount the lab removes).
        _ = FileManager.default.changeCurrentDirectoryPath("/")
        try await SessionKeeper.serve(at: socket, persist: .seconds(persist))
    }
}
