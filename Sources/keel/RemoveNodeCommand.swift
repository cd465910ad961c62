import ArgumentParser
import Playbooks

struct RemoveNodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RemoveNodeFlow.name, abstract: RemoveNodeFlow.summary,
        discussion:
            "Shows what it will do, then asks for the host names; --yes HOST answers for scripts. The leader is refused: switch over first. Backups are not touched; the data directory stays unless --wipe-data."
    )

    @OptionGroup var options: ClusterFlowOptions
    @OptionGroup var confirmation: HostConfirmation

    @Flag(help: "Also delete the data directory of the hosts leaving.")
    var wipeData = false

    @Argument(help: "The hosts to remove (inventory names).")
    var hosts: [String] = []

    func run() async throws {
        try await options.run(
            RemoveNodeFlow(hosts: hosts, wipeData: wipeData), answers: .init(hosts: confirmation.confirmed))
    }
}
