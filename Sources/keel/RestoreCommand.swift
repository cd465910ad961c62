import ArgumentParser
import Playbooks

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RestoreFlow.name, abstract: RestoreFlow.summary,
        discussion:
            "Reads the repository's backups and how far the WAL archive reaches, shows the plan (the backup set and why, the target, every data directory replaced), then asks for the cluster's name; --confirm NAME answers for scripts, --check shows the plan and stops. Run again with the same target, it resumes where a killed or failed run stopped; with another target, it restores there instead (until the restored data serves); with --abandon, it gives the restore up and starts Patroni again (until the restore host's data is being replaced). After a finished restore it changes nothing."
    )

    @OptionGroup var options: ClusterFlowOptions
    @OptionGroup var target: RestoreTargetOptions
    @Option(help: "Confirm without a prompt: the cluster's name.") var confirm: String?

    func run() async throws {
        let (target, again, abandon) = (try self.target.target(), self.target.again, self.target.abandon)
        try await options.run(confirming: [.clusterName], answers: .init(cluster: confirm)) { model, inventory, fleet in
            let (plan, decision) = try await RestoreSurvey.plan(
                model, target: target, again: again, abandon: abandon, inventory: inventory, fleet: try fleet())
            return RestoreFlow(plan: plan, decision: decision)
        }
    }
}
