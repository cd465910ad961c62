import ArgumentParser
import Playbooks

struct UpgradeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: UpgradeFlow.name, abstract: UpgradeFlow.summary,
        discussion:
            "Reads every member first and refuses with the reason when the cluster is not ready; --check shows the plan and stops. A run stopped half way is resumed by running it again, or rolled back with --rollback until the new leader has started (the plan names that point), or later from a replica kept with --keep-replica until --finish."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Option(help: "The major release to upgrade to (newer than the running one).")
    var to: Int?
    @Option(
        name: .customLong("keep-replica"),
        help: ArgumentHelp(
            "With --to: keep this replica stopped on the old release until --finish; until then --rollback starts the old release from it, even past the point of no return.",
            valueName: "host"))
    var keepReplica: String?
    @Flag(help: "Roll back the unfinished upgrade: the old release started again, as it was.")
    var rollback = false
    @Flag(help: "With a replica kept: clone it on the new release and record the upgrade as finished.")
    var finish = false
    @Flag(help: "Once the upgrade finished: delete the old release's data directories and remove its packages.")
    var cleanup = false
    @Option(help: "Confirm without a prompt: the cluster's name.") var confirm: String?

    func validate() throws {
        if [to != nil, rollback, finish, cleanup].filter({ $0 }).count != 1 {
            throw ValidationError("name the release to upgrade to (--to N), or --rollback, --finish or --cleanup")
        }
        if keepReplica != nil && to == nil {
            throw ValidationError("--keep-replica goes with --to N")
        }
    }

    /// What the options ask for (``validate()`` made it exactly one thing).
    private var request: UpgradeFlow.Request {
        if let to { return .upgrade(to: to, keeping: keepReplica) }
        return rollback ? .rollback : finish ? .finish : .cleanup
    }

    func run() async throws {
        try await options.run(confirming: [.clusterName], answers: .init(cluster: confirm)) { model, inventory, fleet in
            try await UpgradeFlow.planned(request, model: model, inventory: inventory, fleet: try fleet())
        }
    }
}
