import ArgumentParser
import Playbooks

struct UpgradeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: UpgradeFlow.name, abstract: UpgradeFlow.summary,
        discussion:
            "Reads every member first and refuses with the reason when the cluster is not ready; --check shows the plan and stops. A run stopped half way is resumed by running it again, or rolled back with --rollback until the new leader has started (the plan names that point)."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Option(help: "The major release to upgrade to (newer than the running one).")
    var to: Int?
    @Flag(help: "Roll back the unfinished upgrade: the old release started again, as it was.")
    var rollback = false
    @Flag(help: "Once the upgrade finished: delete the old release's data directories and remove its packages.")
    var cleanup = false
    @Option(help: "Confirm without a prompt: the cluster's name.") var confirm: String?

    func validate() throws {
        if [to != nil, rollback, cleanup].filter({ $0 }).count != 1 {
            throw ValidationError("name the release to upgrade to (--to N), or --rollback, or --cleanup")
        }
    }

    func run() async throws {
        try await options.run(confirming: [.clusterName], answers: .init(cluster: confirm)) { model, inventory, fleet in
            try await UpgradeFlow.planned(
                to: to, rollback: rollback, cleanup: cleanup, model: model, inventory: inventory, fleet: try fleet())
        }
    }
}
