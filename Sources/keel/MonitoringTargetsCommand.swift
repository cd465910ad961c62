import ArgumentParser
import Foundation
import Keel
import Playbooks

struct MonitoringTargetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitoring-targets",
        abstract:
            "Print a Prometheus scrape_configs block for the cluster's exporters (keel_monitoring: true): every target with its cluster, host and role labels, and where your Prometheus keeps its CA certificate, scrape password and client certificate for Patroni (--write-files writes them); or, with --alert-rules, the cluster's alerting rules."
    )

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    @Option(
        help: ArgumentHelp(
            "Where your Prometheus keeps the cluster's files: CLUSTER-ca.crt, CLUSTER.password, "
                + "CLUSTER-patroni-client.crt and .key (default: \(ScrapeConfigs.directory)).",
            valueName: "directory"))
    var directory = ScrapeConfigs.directory

    @Flag(
        help:
            "Also write those files into the directory from Keel's secrets file (the key and password 0600, this account's: give them to the account Prometheus runs as)."
    )
    var writeFiles = false

    @Flag(help: "Print the alerting rules (a rule file for Prometheus's rule_files) instead of the scrape block.")
    var alertRules = false

    func run() async throws {
        let (inventory, _) = try await connection.addingFacts(to: try inventoryOptions.load().0)
        let model = try ClusterModel.readingOnly(inventory)
        guard model.monitoring != nil else {
            throw CLIError(
                "monitoring is off for this cluster: set keel_monitoring: true in the inventory and run keel deploy")
        }
        let files = ScrapeConfigs.Files(in: directory, cluster: model.name)
        if writeFiles {
            let contents = ScrapeConfigs.contents(model, files)
            guard !contents.isEmpty else {
                throw CLIError(
                    "the secrets file holds no scraper certificate for this cluster (or its TLS is off): run keel "
                        + "deploy with keel_monitoring: true first")
            }
            for (path, content) in contents {
                try Self.write(content, to: path, inside: directory)
            }
        }
        let text = alertRules ? AlertRules.yaml(model) : ScrapeConfigs.yaml(model, files: files)
        Terminal.write(terminalSafe(text, keepingNewlines: true))
    }

    /// Writes `content` to `path` in `directory` (made when missing), replaced whole (``PrivateFile``).
    private static func write(_ content: Secret, to path: String, inside directory: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        do {
            try PrivateFile.replace(path, with: Array(content.reveal().utf8))
        } catch {
            throw CLIError(error.description)
        }
    }
}
