import Foundation
import Keel

/// Before a flow changes a running cluster: a leader, every running member in service, Patroni not paused, etcd
/// with its quorum. Anything else stops the flow before it changes anything (unless the operator forces it).
struct RunningClusterCheck: Resource {
    let model: ClusterModel
    /// The database and etcd hosts that run already (the flow's new hosts left out).
    let members: [String]
    let etcdMembers: [String]
    /// What the flow is, for the message: `add-node`.
    let flow: String

    /// The check as a guard play, read from the first running member whatever `--limit` says.
    static func play(_ model: ClusterModel, members: [String], etcdMembers: [String], flow: String) -> Play {
        Play("running cluster", on: members[0], guarding: true, tags: ["always"]) { _ in
            RunningClusterCheck(model: model, members: members, etcdMembers: etcdMembers, flow: flow)
        }
    }

    var description: String { "the running cluster is healthy" }

    var probe: String { RunningClusterProbe.command(model, members: members, etcdMembers: etcdMembers).text }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let (cluster, etcd) = RunningClusterProbe.parts(output)
        let problems = Self.problems(cluster: cluster, etcd: etcd, members: members, etcdMembers: etcdMembers)
        guard problems.isEmpty else {
            throw ResourceError(
                "the running cluster is not healthy, so \(flow) changes nothing: \(problems.joined(separator: "; "))"
                    + "\n  hint: see keel status; fix the cluster first, or run again with --force to go on regardless")
        }
        return []
    }

    /// What is wrong, from Patroni's `/cluster` and etcd's `endpoint health -w json`.
    static func problems(cluster: String, etcd: String, members: [String], etcdMembers: [String]) -> [String] {
        guard let (listed, paused) = try? ClusterStatus.Member.decode(Data(cluster.utf8)) else {
            return ["no member's Patroni answers"]
        }
        var problems: [String] = []
        if paused { problems.append("Patroni is paused (maintenance mode)") }
        let leaders = listed.filter { ["leader", "standby_leader"].contains($0.role) }
        if leaders.count != 1 { problems.append("\(leaders.count) leaders") }
        for member in members {
            guard let state = listed.first(where: { $0.name == member })?.state else {
                problems.append("\(member) is not a member")
                continue
            }
            if !["running", "streaming"].contains(state) { problems.append("\(member) is \(state)") }
        }
        let healthy = RunningClusterProbe.healthyEtcd(etcd)
        if healthy * 2 <= etcdMembers.count {
            problems.append("etcd has no quorum (\(healthy) of \(etcdMembers.count) members healthy)")
        }
        return problems
    }
}
