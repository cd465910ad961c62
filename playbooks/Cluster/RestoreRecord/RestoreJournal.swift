import Foundation

/// The cluster's restores as its members recorded them (``RestoreProgress``), read together as one journal: the
/// newest restore any member names is the cluster's, finished or abandoned when any member says so. A member whose
/// record is missing (a host replaced since) changes nothing: a finished restore stays finished, and an unfinished
/// one is never resumed on a restore host that lost its record.
public struct RestoreJournal: Sendable {
    /// What the next run of `keel restore` does, decided before anything is touched.
    public enum Decision: Sendable {
        /// No restore is under way: plan a new one.
        case new
        /// The newest restore went to this target and is finished: nothing to do (`--again` does it once more).
        case finished(RestoreProgress)
        /// The unfinished restore to this target goes on, from the restore host's record.
        case resume(RestoreProgress)
        /// The unfinished restore goes to another target: a new plan replaces it (its data was not promoted yet).
        case retarget(RestoreProgress)
        /// The unfinished restore is given up: Patroni starts again where it was stopped; nothing was replaced.
        case abandon(RestoreProgress)
    }

    /// Each member's record of a restore of this cluster, by host (members without one are absent).
    public let records: [String: RestoreProgress]

    /// The records of `cluster`'s restores among `records`: a repository host may keep a removed cluster's (of
    /// another name) beside its kept stanza.
    public init(records: [String: RestoreProgress], cluster: String) {
        self.records = records.filter { $0.value.plan.cluster == cluster }
    }

    /// The newest restore recorded, as its restore host recorded it (else as any member did), with whether any
    /// member recorded it finished or abandoned.
    public var newest: (progress: RestoreProgress, over: Bool)? {
        guard let plan = records.values.map(\.plan).max(by: { $0.planned < $1.planned }) else { return nil }
        let same = records.filter { $0.value.plan.id == plan.id }
        let progress = same[plan.restoreHost] ?? same.values.first!
        return (progress, same.values.contains { $0.isFinished || $0.isAbandoned })
    }

    /// The restore host's own record of `plan`, if it still has it.
    func restoreHostRecord(of plan: RestorePlan) -> RestoreProgress? {
        records[plan.restoreHost].flatMap { $0.plan.id == plan.id ? $0 : nil }
    }

    /// What `keel restore` to `target` does now.
    /// - Throws: ``FlowError`` for what cannot be done safely, saying what can.
    public func decide(target: RestoreTarget, again: Bool, abandon: Bool) throws(FlowError) -> Decision {
        guard let (progress, over) = newest, !over else {
            guard !abandon else {
                throw FlowError("no restore is under way: nothing to abandon", hint: "see keel status")
            }
            if let (progress, _) = newest, progress.isFinished, progress.plan.target == target, !again {
                return .finished(progress)
            }
            return .new
        }
        let plan = progress.plan
        let done = progress.stages.isEmpty ? "nothing yet" : progress.stages.joined(separator: ", ")
        guard let own = restoreHostRecord(of: plan) else {
            throw FlowError(
                "\(plan.restoreHost), the host restored by the unfinished \(plan.id), has lost its record of it (the "
                    + "others recorded: \(done)): resuming or abandoning it blindly could restore it twice or start "
                    + "Patroni on half-restored data",
                hint: "check \(plan.restoreHost)'s data directory by hand; then restore to a new target (which "
                    + "restores it whole again)")
        }
        if abandon {
            guard !own.began(RestoreProgress.restored) else {
                throw FlowError(
                    "the unfinished \(plan.id) has begun replacing \(plan.restoreHost)'s data: it cannot be abandoned",
                    hint: "finish it (keel restore with the same target), or restore to another target")
            }
            return .abandon(own)
        }
        guard plan.target == target else {
            guard !own.stages.contains(RestoreProgress.leading) else {
                throw FlowError(
                    "the unfinished \(plan.id) already serves its restored data on \(plan.restoreHost) (done: "
                        + "\(own.stages.joined(separator: ", ")))",
                    hint: "finish it first (keel restore with its target), then restore anew")
            }
            return .retarget(own)
        }
        return .resume(own)
    }
}
