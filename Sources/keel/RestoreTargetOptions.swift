import ArgumentParser
import Foundation
import Playbooks

/// What `keel restore` restores to: a moment, a backup set (replayed on to a moment or not), or the newest backup
/// with all the archived WAL; or, with `--abandon`, nothing (the unfinished restore is given up).
struct RestoreTargetOptions: ParsableArguments {
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

    func validate() throws {
        guard abandon || latest != (targetTime != nil || backupSet != nil) else {
            throw ValidationError("give --target-time, --backup-set (with or without --target-time) or --latest")
        }
        guard !abandon || (!latest && targetTime == nil && backupSet == nil && !again) else {
            throw ValidationError("--abandon gives the unfinished restore up: give it alone, without a target")
        }
    }

    /// The target the options name (`--abandon` names none: the journal's unfinished restore is the one given up).
    func target() throws -> RestoreTarget {
        if abandon { return .latest }
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
}
