import ArgumentParser
import Foundation
import Playbooks

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RestoreFlow.name, abstract: RestoreFlow.summary,
        discussion:
            "Reads the repository's backups and how far the WAL archive reaches, shows the plan (the backup set and why, the target, every data directory replaced), then asks for the cluster's name; --confirm NAME answers for scripts, --check shows the plan and stops. Run again with the same target, it resumes where a killed run stopped; after a finished restore it changes nothing."
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

    @Option(help: "Confirm without a prompt: the cluster's name.")
    var confirm: String?

    func validate() throws {
        guard latest != (targetTime != nil || backupSet != nil) else {
            throw ValidationError("give --target-time, --backup-set (with or without --target-time) or --latest")
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
        let target = try target()
        var finished = false
        try await options.run(
            offline: { inventory in
                guard !options.checking else { return }
                try ClusterConfirmation(confirm).checkEarly(ClusterModel.name(in: inventory), for: RestoreFlow.name)
            },
            planning: { model, inventory, connection in
                let (plan, progress) = try await RestoreSurvey.plan(
                    model, target: target, again: again, inventory: inventory, connection: try connection(),
                    forks: options.connection.forks)
                // The plan shows under --check too.
                Terminal.write(plan.text)
                if let progress {
                    finished = progress.isFinished
                    Terminal.write(
                        finished
                            ? "This restore is finished: nothing is left to do (--again restores to it once more).\n"
                            : "It was begun: resuming after \(progress.stages.joined(separator: ", ")).\n")
                }
                return RestoreFlow(plan: plan)
            },
            confirm: { model, _ in
                if !finished { try ClusterConfirmation(confirm).require(model.name, for: RestoreFlow.name) }
            })
    }
}
