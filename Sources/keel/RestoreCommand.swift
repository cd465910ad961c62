import ArgumentParser
import Foundation
import Playbooks

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RestoreFlow.name, abstract: RestoreFlow.summary,
        discussion:
            "Reads the repository's backups and how far the WAL archive reaches, shows the plan (the backup set and why, the target, every data directory replaced), then asks for the cluster's name; --confirm NAME answers for scripts, --check shows the plan and stops. Run again with the same target, it resumes where a killed or failed run stopped; with another target, it restores there instead (until the restored data serves); with --abandon, it gives the restore up and starts Patroni again (until the restore host's data is being replaced). After a finished restore it changes nothing."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Option(help: "Restore to this moment, with its time zone: \"2026-11-22 14:02:16+00\".")
    var targetTime: String?

    @Option(help: "Restore this backup set (a label of pgbackrest info); with --target-time, replay on to that moment.")
    var backupSet: String?

    @Flag(help: "Restore the newest backup and replay all the archived WAL.")
    var latest = false

    @Flag(help: "Restore to the same target as a finished restore once more (without it, that restore is done).")
    var again = false

    @Flag(help: "Give up the unfinished restore: start Patroni again on every member (before any data is replaced).")
    var abandon = false

    @Option(help: "Confirm without a prompt: the cluster's name.")
    var confirm: String?

    func validate() throws {
        guard abandon || latest != (targetTime != nil || backupSet != nil) else {
            throw ValidationError("give --target-time, --backup-set (with or without --target-time) or --latest")
        }
        guard !abandon || (!latest && targetTime == nil && backupSet == nil && !again) else {
            throw ValidationError("--abandon gives the unfinished restore up: give it alone, without a target")
        }
    }

    /// The target the options name.
    private func target() throws -> RestoreTarget {
        let moment: RestoreTarget.Moment?
        do {
            moment = try targetTime.map(RestoreTarget.Moment.init)
        } catch {
            throw CLIError(error.description)
        }
        if let moment, moment.date > Date() {
            throw CLIError(
                "--target-time \(moment.text) is in the future (this machine's clock): nothing to restore to yet")
        }
        if let backupSet { return .backupSet(backupSet, moment) }
        return moment.map(RestoreTarget.time) ?? .latest
    }

    func run() async throws {
        // --abandon names no target: the journal's unfinished restore is the one given up.
        let target = abandon ? .latest : try target()
        try await options.run(confirming: [.clusterName], answers: .init(cluster: confirm)) { model, inventory, fleet in
            let (plan, decision) = try await RestoreSurvey.plan(
                model, target: target, again: again, abandon: abandon, inventory: inventory, fleet: try fleet())
            return RestoreFlow(plan: plan, decision: decision)
        }
    }
}
