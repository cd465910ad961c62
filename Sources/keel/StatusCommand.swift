import ArgumentParser
import Foundation
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

    @Flag(help: "Read the cluster again every two seconds, redrawn in place on a terminal, until interrupted.")
    var watch = false

    func validate() throws {
        if inventoryOptions.limit != nil {
            throw ValidationError("keel status reports the whole cluster; --limit does not apply to it")
        }
        if watch && json { throw ValidationError("--watch redraws the table; it does not go with --json") }
    }

    func run() async throws {
        let (inventory, _) = try inventoryOptions.load()
        let hosts = try targets(of: inventory, inventory.hostNames)
        let model: ClusterModel
        do {
            model = try ClusterModel.load(
                from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path, readOnly: true))
        } catch {
            throw CLIError("\(error)")
        }
        let options = try connection.options(for: hosts)
        let redraw = watch && isatty(STDOUT_FILENO) == 1
        while true {
            let status: ClusterStatus
            do {
                status = try await ClusterStatus.gather(
                    model, inventory: inventory, connection: options, forks: connection.forks)
            } catch let error as StatusError {
                guard watch else { throw CLIError(error.description) }
                Terminal.write((redraw ? "\u{1B}[H\u{1B}[2J" : "") + "\(error.description)\n")
                try await Task.sleep(for: .seconds(2))
                continue
            }
            // Home and clear, then the new table: the terminal shows one status, always the latest.
            Terminal.write(redraw ? "\u{1B}[H\u{1B}[2J" + status.table : json ? try status.json() + "\n" : status.table)
            guard watch else {
                if !status.problems.isEmpty { throw ExitCode.failure }
                return
            }
            try await Task.sleep(for: .seconds(2))
        }
    }
}
