import ArgumentParser
import Foundation
import Keel
import Playbooks

struct MonitoringTargetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitoring-targets",
        abstract:
            "Print a Prometheus scrape_configs block for the cluster's exporters (keel_monitoring: true): every target with its cluster, host and role labels, and where your Prometheus keeps the CA certificate and the scrape password; or, with --alert-rules, the cluster's alerting rules."
    )

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    @Option(
        help:
            "Where your Prometheus keeps the cluster's CA certificate (default: \(ScrapeConfigs.directory)/CLUSTER-ca.crt)."
    )
    var caFile: String?

    @Option(
        help: "Where your Prometheus keeps the scrape password (default: \(ScrapeConfigs.directory)/CLUSTER.password).")
    var passwordFile: String?

    @Flag(help: "Print the alerting rules (a rule file for Prometheus's rule_files) instead of the scrape block.")
    var alertRules = false

    func run() async throws {
        let (inventory, _) = try await connection.addingFacts(to: try inventoryOptions.load().0)
        let model = try ClusterModel.readingOnly(inventory)
        guard model.monitoring != nil else {
            throw CLIError(
                "monitoring is off for this cluster: set keel_monitoring: true in the inventory and run keel deploy")
        }
        let text =
            alertRules
            ? AlertRules.yaml(model) : ScrapeConfigs.yaml(model, caFile: caFile, passwordFile: passwordFile)
        Terminal.write(terminalSafe(text, keepingNewlines: true))
    }
}
