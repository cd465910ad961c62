import ArgumentParser
import Playbooks

struct UpgradeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: UpgradeFlow.name, abstract: UpgradeFlow.summary,
        discussion:
            "Reads every member first and refuses with the reason when the cluster is not ready; --check shows the plan and stops. This build does the first stage only (the new release installed beside the old one and pg_upgrade --check on the leader); the running cluster is not changed.",
        shouldDisplay: false)

    @OptionGroup var options: ClusterFlowOptions

    @Option(help: "The major release to upgrade to (newer than the running one).")
    var to: Int
    @Option(help: "Confirm without a prompt: the cluster's name.") var confirm: String?

    func run() async throws {
        try await options.run(confirming: [.clusterName], answers: .init(cluster: confirm)) { model, inventory, fleet in
            try await UpgradeFlow.planned(to: to, model: model, inventory: inventory, fleet: try fleet())
        }
    }
}
