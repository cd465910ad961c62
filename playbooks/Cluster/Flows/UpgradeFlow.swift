import Keel

/// The major upgrade of a running cluster (pg_upgrade --link), planned from the running cluster: refused, with the
/// reason and nothing changed, while the cluster is not healthy, a member runs another release than the inventory
/// names, the target is not newer, a transaction is prepared, a replica lags, or a member lacks the disk. Its
/// first stage changes nothing of the running cluster: the new release's packages installed beside the old one on
/// every member, every extension checked there, and on the leader a new cluster initialized and `pg_upgrade
/// --check` run against it.
public struct UpgradeFlow: ClusterFlow, Sendable {
    public static let name = "upgrade"
    public static let summary =
        "Upgrade PostgreSQL to a newer major release in place (pg_upgrade --link), checked on every member first."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    public let leader: String
    /// The running major release, and the target.
    public let from: Int
    public let to: Int
    let survey: UpgradeSurvey
    let upgraded: ClusterModel

    /// Room a member needs beside its WAL for the new cluster's catalogue and first WAL (pg_upgrade --link shares
    /// the relation files).
    static let headroom = 512 * 1024 * 1024

    /// The upgrade of the cluster `status` shows to major release `target`.
    /// - Throws: ``FlowError`` naming what stands in the way.
    public init(to target: Int, survey: UpgradeSurvey, status: ClusterStatus, model: ClusterModel) throws(FlowError) {
        try status.refuseUnlessHealthy(model, because: "an upgrade starts from a healthy cluster")
        let leader = try status.leader()
        let from = model.postgresVersion
        for host in model.databaseHosts {
            guard let running = survey.members[host]?.major else {
                throw FlowError(
                    "\(host)'s PostgreSQL does not say its release", hint: "see keel status (nothing was changed)")
            }
            if running != from {
                throw FlowError(
                    "\(host) runs PostgreSQL \(running), the inventory says \(from) (postgresql_version)",
                    hint: running == target
                        ? "it is upgraded already: set postgresql_version: \(target) (nothing was changed)"
                        : "set postgresql_version to the release the cluster runs (nothing was changed)")
            }
        }
        guard target > from else {
            throw FlowError(
                "--to \(target) is not newer than the running PostgreSQL \(from)",
                hint: "name a newer major release (nothing was changed)")
        }
        guard (10...18).contains(target), target == 15 || model.pgdg != nil else {
            throw FlowError(
                "PostgreSQL \(target) is not a release Keel can install here",
                hint: model.pgdg == nil
                    ? "Debian 12 packages PostgreSQL 15 only: set pgdg_repository: true (nothing was changed)"
                    : "name a release from 10 to 18 (nothing was changed)")
        }
        if survey.preparedTransactions > 0 {
            throw FlowError(
                "\(survey.preparedTransactions) prepared transaction(s) wait on \(leader): pg_upgrade refuses them",
                hint:
                    "COMMIT PREPARED or ROLLBACK PREPARED them (pg_prepared_xacts), then run again; nothing was changed"
            )
        }
        try status.refuseLagging(model)
        for host in model.databaseHosts {
            guard let member = survey.members[host] else { continue }
            if member.freeBytes < member.walBytes + Self.headroom {
                throw FlowError(
                    "\(host) has \(member.freeBytes / 1_048_576) MiB free beside its data directory; the upgraded "
                        + "cluster needs \((member.walBytes + Self.headroom) / 1_048_576) MiB (its WAL and catalogue)",
                    hint: "free some space there, then run again; nothing was changed")
            }
        }
        self.leader = leader
        self.from = from
        self.to = target
        self.survey = survey
        upgraded = try model.upgraded(to: target)
    }

    /// The upgrade planned from what the members and the running cluster say now.
    public static func planned(to target: Int, model: ClusterModel, inventory: Inventory, fleet: Fleet)
        async throws -> UpgradeFlow
    {
        let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: fleet)
        let survey = try await UpgradeSurvey.read(
            model, leader: try status.leader(), inventory: inventory, fleet: fleet)
        return try UpgradeFlow(to: target, survey: survey, status: status, model: model)
    }

    public var confirmations: [FlowConfirmation] { [.clusterName] }

    public func plan(_ model: ClusterModel) -> String? {
        let extensions = survey.extensions.isEmpty ? "" : " (\(survey.extensions.joined(separator: ", ")))"
        return [
            "upgrade will, on cluster \(model.name) (PostgreSQL \(from) → \(to)):",
            "  first, the running cluster untouched:",
            "    on \(model.databaseHosts.joined(separator: ", ")): \(PostgresPackages.server(upgraded)) and its client "
                + "installed beside \(from); every extension\(extensions) available in \(to)",
            "    on \(leader) (the leader): a new cluster initialized in \(upgraded.dataDirectory) like the running "
                + "one, and pg_upgrade --check against it",
            "  then the upgrade itself, which this build does not do yet: nothing of the running cluster changes; "
                + "its \(from) data directories stay (\(model.dataDirectory) on "
                + "\(model.databaseHosts.joined(separator: ", ")))",
        ].joined(separator: "\n") + "\n\n"
    }

    public func playbook(_ model: ClusterModel, patroniWheel: [UInt8]) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            UpgradePlays.prepared(model, upgraded: upgraded, leader: leader, extensions: survey.extensions)
        }
        .stoppingAtFirstFailure()
    }
}
