import ArgumentParser
import Playbooks

/// What `keel remove-cluster` removes besides the cluster itself, and the answers to its confirmations.
struct ClusterRemovalOptions: ParsableArguments {
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

    /// The cluster's name, and the stanza's too when the backups go.
    var confirmations: [FlowConfirmation] { [.clusterName] + (deleteBackups ? [.stanzaName] : []) }
    var answers: ConfirmationAnswers { ConfirmationAnswers(cluster: confirm, stanza: confirmBackups) }
}
