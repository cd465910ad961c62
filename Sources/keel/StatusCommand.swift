import ArgumentParser
import Keel
import Playbooks

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show the running cluster: members, roles, states, timelines, lag, etcd's health, the VIP and the backups; exit 1 when it is degraded."
    )

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        if inventoryOptions.limit != nil {
            throw ValidationError("keel status reports the whole cluster; --limit does not apply to it")
        }
    }

    func run() async throws {
        let (inventory, _) = try inventoryOptions.load()
        let hosts = try targets(of: inventory, inventory.hostNames)
        let status: ClusterStatus
        do {
            let model = try ClusterModel.load(
                from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path, readOnly: true))
            status = try await ClusterStatus.gather(
                model, inventory: inventory, connection: connection.options(for: hosts), forks: connection.forks)
        } catch let error as InventoryError {
            throw CLIError(error.description)
        } catch let error as StatusError {
            throw CLIError(error.description)
        }
        Terminal.write(json ? try status.json() + "\n" : status.table)
        if !status.problems.isEmpty { throw ExitCode.failure }
    }
}
