import Foundation
import Keel

/// What a restore will do, decided before anything stops: the backup set and why, how far the WAL replay goes,
/// and the hosts whose data is replaced. Made from the repository's backups and from how far the archive reaches
/// (the leader's last archived segment, after a WAL switch); what cannot be restored is refused here.
public struct RestorePlan: Sendable, Codable {
    public let cluster: String
    /// The cluster's keys in etcd, deleted so that the restored member leads a cluster of its own data.
    public let dcsPrefix: String
    public let target: RestoreTarget
    /// The stanza restored from, and its repository (a host, or a shared repository's path); nil in plans of an
    /// earlier Keel.
    public let stanza: String?
    public let repository: String?
    /// The backup set restored.
    public let set: BackupStatus.Backup
    /// Why that set.
    public let reason: String
    /// How far the archive reaches once the leader stops: the leader's clock when the restore was planned (its WAL
    /// is switched and archived as it stops, so that every commit until then is in the archive).
    public let archivedUntil: Date
    /// The member restored from the repository (the leader now), which leads afterwards; the others are cloned
    /// from it.
    public let restoreHost: String
    public let otherMembers: [String]
    /// The leader's timeline now.
    public let timeline: Int?
    /// When the plan was made: two restores to the same target are two restores.
    public let planned: Date
    /// The database system identifier the members' data holds (shown, so that the operator sees which cluster's
    /// data is replaced); nil when no member had data.
    public let systemID: String?

    /// Names the restore in its progress file: a rerun with the same target resumes the restore it names.
    public var id: String {
        "restore of \(cluster) on \(restoreHost) from \(set.label) \(target.description), planned \(Self.text(planned))"
    }

    /// - Parameter systemID: the database system identifier of the members' data, when one has data.
    /// - Throws: ``FlowError`` for a target the repository cannot reach, a repository that is not sound, or a set
    ///   of another database than the members'.
    public init(
        _ model: ClusterModel, target: RestoreTarget, backups: BackupStatus?, archivedUntil: Date?, timeline: Int?,
        leader: String?, systemID: String?
    ) throws(FlowError) {
        guard let repository = model.backups else {
            throw FlowError(
                "the cluster has no pgBackRest repository to restore from",
                hint: "set pgbackrest_install: true and deploy; backups start then")
        }
        guard let backups else {
            throw FlowError(
                "the repository's backups could not be read",
                hint: "see keel status, and pgbackrest info on the repository")
        }
        guard backups.status == "ok" else {
            throw FlowError(
                "the repository of stanza \(repository.stanza) reports '\(backups.status)'",
                hint: "fix it first (pgbackrest --stanza=\(repository.stanza) check shows why)")
        }
        let sets = backups.backups.sorted { $0.finished < $1.finished }
        guard let oldest = sets.first, let newest = sets.last else {
            throw FlowError("stanza \(repository.stanza) holds no backup", hint: "take one first (keel deploy does)")
        }
        guard let archivedUntil else {
            throw FlowError(
                "how far the WAL archive reaches is unknown: the leader reports no archived segment",
                hint: "check archiving (pg_stat_archiver on the leader, pgbackrest check)")
        }
        let chosen: BackupStatus.Backup
        let reason: String
        switch target {
        case .time(let moment):
            guard let latest = sets.last(where: { Double($0.finished) <= moment.date.timeIntervalSince1970 }) else {
                throw FlowError(
                    "\(moment.text) is before the oldest backup, \(oldest.label), finished \(Self.text(oldest.finished))",
                    hint: "choose a moment after it")
            }
            (chosen, reason) = (latest, "the newest backup finished before the target")
        case .backupSet(let label, let moment):
            guard let named = sets.first(where: { $0.label == label }) else {
                throw FlowError(
                    "stanza \(repository.stanza) has no backup set \(label)",
                    hint: "choose one of \(sets.map(\.label).joined(separator: ", ")); keel restore restores a "
                        + "cluster from its own stanza: a removed cluster's backups, kept in their own stanza, are "
                        + "restored by hand (pgbackrest --stanza=OLD restore)")
            }
            if let moment, moment.date.timeIntervalSince1970 < Double(named.finished) {
                throw FlowError(
                    "\(moment.text) is before backup set \(label) finished (\(Self.text(named.finished)))",
                    hint: "choose a later moment, or an older set")
            }
            (chosen, reason) = (named, "the set named")
        case .latest:
            (chosen, reason) = (newest, "the newest backup")
        }
        if let moment = target.moment, moment.date > archivedUntil {
            throw FlowError(
                "\(moment.text) is after the leader's clock (\(Self.text(archivedUntil))): the archive cannot reach it",
                hint: "a moment after it cannot be reached; choose an earlier one, or --latest")
        }
        if let held = chosen.systemID, let systemID, held != systemID {
            throw FlowError(
                "backup set \(chosen.label) of stanza \(backups.stanza) holds database system \(held), but the "
                    + "members' data is system \(systemID): the stanza is another cluster's",
                hint: "check pgbackrest_stanza and the repository in the inventory; keel restore puts back a "
                    + "cluster's own backups, never another's over it")
        }
        cluster = model.name
        dcsPrefix = model.dcsPrefix
        self.stanza = backups.stanza
        self.repository = backups.repository
        self.systemID = systemID
        self.target = target
        set = chosen
        self.reason = reason
        self.archivedUntil = archivedUntil
        let restoreHost =
            leader.flatMap { model.databaseHosts.contains($0) ? $0 : nil } ?? model.primaryHost
            ?? model.databaseHosts[0]
        self.restoreHost = restoreHost
        otherMembers = model.databaseHosts.filter { $0 != restoreHost }
        self.timeline = timeline
        planned = Date()
    }

    /// The plan, for the operator to confirm.
    public var text: String {
        let replay: String
        switch target {
        case .time(let moment), .backupSet(_, .some(let moment)):
            replay = "replay the archived WAL from the set's end to \(moment.utc), then promote"
        case .backupSet(_, nil):
            replay = "stop as soon as the set is consistent, then promote (no WAL replayed past it)"
        case .latest: replay = "replay all the archived WAL, then promote"
        }
        return """
            restore will, on cluster \(cluster)\(systemID.map { " (database system identifier \($0))" } ?? ""):
              restore \(target.description)
              from stanza \(stanza ?? "?") of \(repository ?? "the repository"), backup set \(set.label) \
            (\(set.type), finished \(Self.text(set.finished))\(set.systemID.map { ", database system \($0)" } ?? "")): \(reason)
              \(replay), following the newest timeline in the archive; PostgreSQL starts a new timeline \
            (the leader's is \(timeline.map(String.init) ?? "unknown") now); the leader's WAL is switched and archived as it \
            stops, so that the archive reaches \(Self.text(archivedUntil)) and later
              stop Patroni (and with it PostgreSQL) and PgBouncer on every member: the cluster takes no \
            connections until \(restoreHost) has replayed the WAL and leads again
              REPLACE the data directory of \(restoreHost) (pgBackRest delta restore), then delete the cluster's \
            keys in etcd (prefix \(dcsPrefix))
              REPLACE the data directories of \(otherMembers.isEmpty ? "no other member" : otherMembers.joined(separator: ", ")) \
            (cloned from \(restoreHost) once it leads)
              afterwards: the configuration and the roles' passwords from the inventory, archiving on and checked \
            (pgbackrest check), a new full backup at once

            """
    }

    private static func text(_ seconds: Int) -> String { text(Date(timeIntervalSince1970: TimeInterval(seconds))) }
    private static func text(_ date: Date) -> String { date.formatted(.iso8601) }
}
