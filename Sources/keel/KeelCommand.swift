import ArgumentParser
import Keel

@main
struct KeelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keel",
        abstract: "Deploy and run PostgreSQL high-availability clusters over SSH.",
        version: keelVersion,
        subcommands: [
            InventoryCommand.self, PingCommand.self, ExecCommand.self, ApplyCommand.self, PlaybooksCommand.self,
            DeployCommand.self, AddNodeCommand.self, RemoveNodeCommand.self, AddBalancerCommand.self,
            RemoveBalancerCommand.self, SwitchoverCommand.self, UpdateCommand.self, UpgradeCommand.self,
            RestoreCommand.self,
            RemoveClusterCommand.self,
            StatusCommand.self, MonitoringTargetsCommand.self, KeepConnectionsCommand.self,
        ])
}
