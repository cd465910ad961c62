import ArgumentParser
import Examples
import Foundation
import Keel

struct ApplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a playbook to the inventory's hosts.",
        discussion:
            "Exit status: 0 all done (under --check: nothing to change), 2 under --check: changes pending, 1 a host failed or was unreachable."
    )

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments
    @OptionGroup var run: RunArguments

    @Argument(help: "The playbook's name (see `keel playbooks`).")
    var playbook: String

    func run() async throws {
        guard let playbook = Examples.named(playbook) else {
            throw ValidationError(
                "no playbook named '\(playbook)'; known: \(Examples.all.map(\.name).joined(separator: ", "))")
        }
        let (inventory, _) = try inventoryOptions.load()
        try await run.apply(
            playbook, to: inventory, limit: inventoryOptions.limit, forks: connection.forks,
            connector: try connection.options(for: targets(of: inventory, inventory.hostNames)).connector)
    }
}
