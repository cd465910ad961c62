import ArgumentParser
import Foundation
import Playbooks

struct RemoveNodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RemoveNodeFlow.name, abstract: RemoveNodeFlow.summary,
        discussion:
            "Shows what it will do, then asks for the host names; --yes HOST answers for scripts. The leader is refused: switch over first. Backups are not touched; the data directory stays unless --wipe-data."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Option(name: .customLong("yes"), help: "Confirm without a prompt: repeat each host being removed.")
    var confirmed: [String] = []

    @Flag(help: "Also delete the data directory of the hosts leaving.")
    var wipeData = false

    @Argument(help: "The hosts to remove (inventory names).")
    var hosts: [String] = []

    func run() async throws {
        let flow = RemoveNodeFlow(hosts: hosts, wipeData: wipeData)
        try await options.run(flow) { model in
            Terminal.write(flow.plan(model))
            let wanted = hosts.sorted()
            if confirmed.isEmpty {
                guard let typed = Terminal.ask("Type the host name(s) to remove (\(hosts.joined(separator: " "))): ")
                else {
                    throw CLIError(
                        "remove-node needs a confirmation: run it on a terminal, or add --yes HOST for each host")
                }
                guard typed.split(separator: " ").map(String.init).sorted() == wanted else {
                    throw CLIError("'\(typed)' does not name the hosts to remove: nothing was changed")
                }
            } else if confirmed.sorted() != wanted {
                throw CLIError(
                    "--yes names \(confirmed.joined(separator: " ")), not the hosts to remove (\(hosts.joined(separator: " "))): nothing was changed"
                )
            }
        }
    }
}
