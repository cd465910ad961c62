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
        let (inventory, _) = try await connection.addingFacts(to: try inventoryOptions.load().0)
        let hosts = try targets(of: inventory, inventory.hostNames)
        let model = try ClusterModel.readingOnly(inventory)
        var options = try connection.options(for: hosts)
        options.connectTimeout = min(options.connectTimeout, ClusterStatus.connectTimeout)
        let fleet = Fleet(options: options, forks: max(connection.forks, model.allHosts.count))
        // Home and clear before each status when watching on a terminal: it shows one status, always the latest.
        let clear = watch && isatty(STDOUT_FILENO) == 1 ? "\u{1B}[H\u{1B}[2J" : ""
        while true {
            let text: String
            var degraded = false
            do {
                let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
                degraded = !status.problems.isEmpty
                text = json ? try status.json() + "\n" : status.table
            } catch let error as StatusError {
                guard watch else { throw CLIError(terminalSafe(error.description, keepingNewlines: true)) }
                text = error.description + "\n"
            }
            // Names, states and messages come from the hosts (any member's certificate can write the DCS): none
            // may drive the terminal.
            Terminal.write(clear + terminalSafe(text, keepingNewlines: true))
            guard watch else {
                if degraded { throw ExitCode.failure }
                return
            }
            try await Task.sleep(for: .seconds(2))
        }
    }
}
