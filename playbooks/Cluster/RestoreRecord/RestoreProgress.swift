import Foundation
import Keel

/// A restore's progress on one host: its record in the journal (``JournalRecord``, flow `restore`) with the plan
/// read back. Every stage of a restore reads it, so a run killed at any step resumes where it stopped, and a
/// finished restore stays recorded (``RestoreSurvey`` and `keel status` read it).
public struct RestoreProgress: Sendable {
    public static let flow = "restore"
    /// The restore host's stage that replaces its data, and the one after which it serves the restored data.
    static let restored = "restored"
    static let leading = "leading"

    public let record: JournalRecord
    public let plan: RestorePlan

    public var stages: [String] { record.stages }
    public var isFinished: Bool { record.isFinished }
    public var isAbandoned: Bool { record.isAbandoned }

    /// Whether `stage` was begun here (and perhaps not finished).
    func began(_ stage: String) -> Bool { record.began(stage) }

    /// The restore `record` holds; nil when it holds another flow's run, or a plan that does not read back.
    public init?(_ record: JournalRecord) {
        guard record.flow == Self.flow, let plan = record.decodedPlan(RestorePlan.self), plan.id == record.id else {
            return nil
        }
        self.record = record
        self.plan = plan
    }

    /// The restore among the records ``JournalRecord/readAll`` printed, if one is there.
    public static func read(_ text: String) -> RestoreProgress? {
        JournalRecord.parse(text).lazy.compactMap(RestoreProgress.init).first
    }

    /// A line for `keel status`.
    public var summary: String {
        "last restore: \(plan.target.description) from backup set \(plan.set.label) on \(plan.restoreHost) "
            + "(planned \(plan.planned.formatted(.iso8601)))"
            + (isFinished
                ? ""
                : isAbandoned
                    ? " was abandoned"
                    : " is UNFINISHED (done: \(stages.isEmpty ? "nothing" : stages.joined(separator: ", "))): "
                        + "run keel restore with that target again, another target, or --abandon")
    }
}

extension RestorePlan {
    /// The plan recorded on a host taking part, in place of the unfinished restore with id `replacing` if given;
    /// another unfinished restore is never overwritten.
    func begun(replacing: String?) -> JournalBegun {
        JournalBegun(
            flow: RestoreProgress.flow, id: id, plan: JournalRecord.encode(self),
            replacing: replacing.map { .run($0) } ?? .over)
    }

    /// The restore's stage `stage` on a host: `command`, run once (``JournalStage``).
    func stage(_ stage: String, _ summary: String, command: ShellCommand, timeout: Duration = .seconds(600))
        -> JournalStage
    {
        JournalStage(
            flow: RestoreProgress.flow, id: id, stage: stage, summary: summary, command: command, timeout: timeout)
    }
}
