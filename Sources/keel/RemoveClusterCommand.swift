import ArgumentParser
import Playbooks

struct RemoveClusterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RemoveClusterFlow.name, abstract: RemoveClusterFlow.summary,
        discussion:
            "Shows every service, directory (with its size), file and etcd prefix it removes and what happens to the backups, then asks for the cluster's name; --confirm NAME answers for scripts, --check shows the plan and stops. --delete-backups needs its own confirmation: the stanza's name (--confirm-backups STANZA in scripts). Run again, it finishes what a killed run left."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Flag(help: "Also delete the cluster's pgBackRest stanza: every backup and the WAL archive.")
    var deleteBackups = false

    @Flag(help: "Remove etcd even though another cluster keeps keys in it.")
    var removeEtcd = false

    @Flag(help: "Also purge the packages Keel installed.")
    var purgePackages = false

    @Option(help: "Confirm without a prompt: the cluster's name.")
    var confirm: String?

    @Option(help: "Confirm --delete-backups without a prompt: the stanza's name.")
    var confirmBackups: String?

    func validate() throws {
        if confirmBackups != nil && !deleteBackups {
            throw ValidationError("--confirm-backups confirms --delete-backups: give both, or neither")
        }
    }

    func run() async throws {
        try await options.run(
            confirming: [.clusterName] + (deleteBackups ? [.stanzaName] : []),
            answers: .init(cluster: confirm, stanza: confirmBackups)
        ) { model, inventory, fleet in
            RemoveClusterFlow(
                survey: try await ClusterRemovalSurvey.read(
                    model, removeEtcd: removeEtcd, deletingBackups: deleteBackups, inventory: inventory,
                    fleet: try fleet()),
                deleteBackups: deleteBackups, purgePackages: purgePackages)
        }
    }
}
