import Keel

/// Hands the leader's role to a replica through Patroni's REST API: the planned switchover before maintenance of
/// the leader's host. Planned from the running cluster: refused, with the reason and nothing changed, while the
/// cluster is not healthy (no single leader, a member not serving, no synchronous standby, etcd short of quorum,
/// a pause, an unfinished restore) or when the candidate could not take over safely (not a streaming member on
/// the leader's timeline, lagging beyond `maximum_lag_on_failover`, tagged `nofailover`, or, under synchronous
/// mode, not the synchronous standby Patroni hands over to). Then a CHECKPOINT on the leader (so the demoted
/// leader shuts down fast), the switchover, and a wait until the candidate writes and the former leader streams
/// from it. Run again (`--to` the member now leading), it changes nothing.
public struct SwitchoverFlow: ClusterFlow, Sendable {
    public static let name = "switchover"
    public static let summary =
        "Hand the leader's role to a replica (--to HOST, or the least lagging eligible one) through Patroni."
    public static let writesSecrets = false
    public static let needsPatroniWheel = false

    public let leader: String
    public let candidate: String
    /// The candidate as the checks found it, for the plan.
    let findings: String

    /// The switchover `status` allows, to `requested` or to the best candidate.
    /// - Throws: ``FlowError`` naming what stands in the way.
    public init(status: ClusterStatus, model: ClusterModel, to requested: String?) throws(FlowError) {
        try status.refuseUnlessHealthy(model, because: "a switchover hands over a healthy cluster")
        let leaders = status.members.filter { $0.role == "leader" }
        guard leaders.count == 1, let leader = leaders.first else {
            throw FlowError(
                "the cluster has \(leaders.count) leaders", hint: "see keel status (nothing was changed)")
        }
        let replicas = status.members.filter { $0.name != leader.name }
        if let requested {
            guard requested != leader.name else {
                // Run again after it succeeded: nothing to do.
                self.init(leader: leader.name, candidate: leader, model)
                return
            }
            guard let member = replicas.first(where: { $0.name == requested }), model.databaseHosts.contains(requested)
            else {
                throw FlowError(
                    "\(requested) is not a member of the cluster",
                    hint: "name one of \(replicas.map(\.name).joined(separator: ", "))")
            }
            if let reason = Self.ineligibility(of: member, leader: leader, model) {
                throw FlowError(
                    "\(requested) cannot take over: \(reason)", hint: "see keel status (nothing was changed)")
            }
            self.init(leader: leader.name, candidate: member, model)
        } else {
            let eligible = replicas.filter { Self.ineligibility(of: $0, leader: leader, model) == nil }
                .sorted { Self.bytes($0.lag) < Self.bytes($1.lag) }
            guard let best = eligible.first else {
                let reasons = replicas.map { "\($0.name): \(Self.ineligibility(of: $0, leader: leader, model) ?? "")" }
                throw FlowError(
                    "no replica can take over (\(reasons.joined(separator: "; ")))",
                    hint: "see keel status (nothing was changed)")
            }
            self.init(leader: leader.name, candidate: best, model)
        }
    }

    private init(leader: String, candidate: ClusterStatus.Member, _ model: ClusterModel) {
        self.leader = leader
        self.candidate = candidate.name
        findings =
            "\(candidate.role == "sync_standby" ? "the synchronous standby, " : "")streaming on timeline "
            + "\(candidate.timeline.map(String.init) ?? "?"), \(candidate.lag.map(\.description) ?? "0 B") behind"
    }

    /// Why `member` cannot take over from `leader`; nil when it can.
    static func ineligibility(of member: ClusterStatus.Member, leader: ClusterStatus.Member, _ model: ClusterModel)
        -> String?
    {
        if member.state != "streaming" { return "it is \(member.state), not streaming" }
        if member.timeline != leader.timeline {
            return "it is on timeline \(member.timeline.map(String.init) ?? "?"), the leader on "
                + "\(leader.timeline.map(String.init) ?? "?")"
        }
        let behind = bytes(member.lag)
        if behind > model.patroni.maximumLagOnFailover {
            return "it lags \(member.lag.map(\.description) ?? "?") behind (maximum_lag_on_failover is "
                + "\(model.patroni.maximumLagOnFailover) B)"
        }
        if model.patroniTags(of: member.name)["nofailover"] == .bool(true) { return "it is tagged nofailover" }
        if model.patroni.synchronousMode, model.databaseHosts.count > 1, member.role != "sync_standby" {
            return "it is not the synchronous standby, the only member Patroni hands over to under synchronous_mode"
        }
        return nil
    }

    /// A lag in bytes; unknown counts as too far.
    private static func bytes(_ lag: ClusterStatus.Lag?) -> Int {
        switch lag {
        case .bytes(let bytes): bytes
        case .unknown: .max
        case nil: 0
        }
    }

    public func readiness(_ model: ClusterModel) -> HostReadiness? {
        candidate == leader ? nil : HostReadiness(hosts: model.databaseHosts, members: model.databaseHosts)
    }

    public func plan(_ model: ClusterModel) -> String? {
        guard candidate != leader else { return "switchover: \(leader) leads already, nothing to do\n" }
        return """
            switchover will, on cluster \(model.name):
              CHECKPOINT on the leader \(leader), then hand the leader's role to \(candidate) (\(findings))
              wait until \(candidate) writes as the primary and \(leader) streams from it

            """
    }

    public func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook {
        Playbook(Self.name, summary: Self.summary, become: true) {
            if candidate != leader { PatroniPlays.switchover(model, from: leader, to: candidate) }
        }
        .stoppingAtFirstFailure()
    }
}
