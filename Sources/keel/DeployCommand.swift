import ArgumentParser
import Foundation
import Keel
import Playbooks

struct DeployCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Deploy (or converge) the PostgreSQL HA cluster the inventory describes.",
        discussion: "Reads postgresql_cluster's groups and variables. Passwords left empty are generated once and kept in .keel-secrets.yml (0600) beside the inventory.")

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments
    @OptionGroup var run: RunArguments

    func run() async throws {
        let (inventory, _) = try inventoryOptions.load()
        let secrets = try ClusterSecrets(besideInventory: inventory.path)
        let model: ClusterModel
        do {
            model = try ClusterModel.load(from: inventory, secrets: secrets)
        } catch {
            throw CLIError(error.description)
        }
        let wheel = try PatroniWheel.load(version: model.patroniVersion)
        try secrets.save()
        try await run.apply(Playbooks.deploy(model, patroniWheel: wheel), inventoryOptions: inventoryOptions, connection: connection) { recap in
            // Stopped before any change (pre-flight): passwords made for this run reached no host, and must not
            // become the stored ones (a cluster already running with other passwords is refused in pre-flight).
            if !recap.failedHosts.isEmpty && recap.totalChanged == 0 { try secrets.discardGenerated() }
        }
    }
}
