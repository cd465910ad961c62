import ArgumentParser
import Playbooks

struct RemoveClusterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RemoveClusterFlow.name, abstract: RemoveClusterFlow.summary,
        discussion:
            "Shows every service, directory (with its size), file and etcd prefix it removes and what happens to the backups, then asks for the cluster's name; --confirm NAME answers for scripts, --check shows the plan and stops. --delete-backups needs its own confirmation: the stanza's name (--confirm-backups STANZA in scripts). Run again, it finishes what a killed run left."
    )

    @OptionGroup var options: ClusterFlowOptions
    @OptionGroup var removal: ClusterRemovalOptions

    func run() async throws {
        try await options.run(confirming: removal.confirmations, answers: removal.answers) { model, inventory, fleet in
            let survey = try await ClusterRemovalSurvey.read(
                model, removeEtcd: removal.removeEtcd, deletingBackups: removal.deleteBackups, inventory: inventory,
                fleet: try fleet())
            return RemoveClusterFlow(
                survey: survey, deleteBackups: removal.deleteBackups, purgePackages: removal.purgePackages)
        }
    }
}
