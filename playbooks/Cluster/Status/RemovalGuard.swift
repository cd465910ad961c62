import Foundation
import Keel

/// Before members leave: the cluster as it runs must survive their going. Refuses a member that is the leader
/// (switch over first), a departure that leaves `synchronous_mode_strict` without a synchronous standby (commits
/// would block), and one that leaves etcd short of its quorum.
struct RemovalGuard: Resource {
    let model: ClusterModel
    let leaving: [String]

    /// The guard as a play, read from a member that stays, whatever `--limit` says.
    static func play(_ model: ClusterModel, leaving: [String]) -> Play {
        Play("removal guard", on: model.without(leaving).databaseHosts[0], guarding: true, tags: ["always"]) { _ in
            RemovalGuard(model: model, leaving: leaving)
        }
    }

    var description: String { "the cluster can spare \(leaving.joined(separator: ", "))" }

    var probe: String {
        RunningClusterProbe.command(
            model, members: model.databaseHosts, etcdMembers: model.etcdHosts.filter { !leaving.contains($0) }
        ).text
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let (cluster, etcd) = RunningClusterProbe.parts(output)
        let problems = Self.problems(cluster: cluster, etcd: etcd, model: model, leaving: leaving)
        guard problems.isEmpty else {
            throw ResourceError("remove-node changes nothing: \(problems.joined(separator: "; "))")
        }
        return []
    }

    static func problems(cluster: String, etcd: String, model: ClusterModel, leaving: [String]) -> [String] {
        guard let members = try? PatroniMember.decode(Data(cluster.utf8)).members else {
            return ["no member's Patroni answers"]
        }
        var problems: [String] = []
        for member in members where leaving.contains(member.name) && member.role == "leader" {
            problems.append(
                "\(member.name) is the leader\n  hint: switch over first (keel switchover), then run remove-node again"
            )
        }
        let staying = members.filter { !leaving.contains($0.name) }
        if model.patroni.synchronousModeStrict, members.contains(where: { $0.role == "sync_standby" }),
            !staying.contains(where: { $0.role == "sync_standby" })
        {
            problems.append(
                "synchronous_mode_strict would be left without a synchronous standby, and commits would block until one is back"
                    + "\n  hint: wait until Patroni names another member sync_standby (keel status), then run remove-node again"
            )
        }
        let remaining = model.etcdHosts.filter { !leaving.contains($0) }
        if model.etcdHosts.contains(where: leaving.contains) {
            let healthy = RunningClusterProbe.healthyEtcd(etcd)
            if remaining.count < 3 || healthy * 2 <= remaining.count {
                problems.append(
                    "etcd would keep \(healthy) healthy of \(remaining.count) members, too few for a quorum that survives a failure"
                        + "\n  hint: keep at least three etcd members, all healthy")
            }
        }
        return problems
    }
}
