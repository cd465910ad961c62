import Foundation
import Keel

/// A major upgrade as planned, recorded on every member in the journal (``JournalRecord``, flow `upgrade`): a run
/// killed at any step reads it back, resumes where each host stopped, or rolls back while the new leader has not
/// started.
public struct UpgradePlan: Codable, Sendable, Equatable {
    public static let flow = "upgrade"
    /// The leader's stage that starts the upgraded cluster: after it begins, the old data directory of the leader
    /// is the new one's (pg_upgrade --link), and a rollback is a restore.
    static let started = "started"
    /// The last stage of an upgrade that keeps a replica: the cluster runs on the new release without it until
    /// `--finish` clones it (or `--rollback` starts the old release from it).
    static let awaitingFinish = "awaiting-finish"
    /// The stage of the kept replica that clones it on the new release: after it begins, nothing is kept.
    static let keptCloned = "cloned"

    public let cluster: String
    public let from: Int
    public let to: Int
    /// The member that was the leader: pg_upgrade runs there, and it leads the upgraded cluster.
    public let leader: String
    /// The replica kept stopped on the old release, untouched, until `--finish` (`--keep-replica`): until then a
    /// rollback starts the old release from it, even past the point of no return.
    public var kept: String? = nil
    public let planned: Date

    public var id: String { "upgrade of \(cluster) to \(to), planned \(planned.formatted(.iso8601))" }

    /// The plan recorded on a member taking part; an unfinished run of another plan is never overwritten.
    func begun() -> JournalBegun {
        JournalBegun(flow: Self.flow, id: id, plan: JournalRecord.encode(self))
    }

    /// The upgrade's stage `stage` on a host: `command`, run once (``JournalStage``).
    func stage(_ stage: String, _ summary: String, command: ShellCommand, timeout: Duration = .seconds(600))
        -> JournalStage
    {
        JournalStage(flow: Self.flow, id: id, stage: stage, summary: summary, command: command, timeout: timeout)
    }

    /// The upgrade recorded on `host`, read from what ``JournalRecord/readAll`` printed there: the record and its
    /// plan; nil when the host has none.
    static func recorded(_ text: String) -> (record: JournalRecord, plan: UpgradePlan)? {
        for record in JournalRecord.parse(text) where record.flow == flow {
            if let plan = record.decodedPlan(UpgradePlan.self), plan.id == record.id { return (record, plan) }
        }
        return nil
    }
}
