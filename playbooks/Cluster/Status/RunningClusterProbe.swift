import Foundation
import Keel

/// What the guards of a flow read of the running cluster in one probe: Patroni's `/cluster` from the first of
/// `members` that answers, then etcd's `endpoint health` of `etcdMembers`.
enum RunningClusterProbe {
    private static let separator = "--- etcd:"

    static func command(_ model: ClusterModel, members: [String], etcdMembers: [String]) -> ShellCommand {
        let patroni = members.map { PatroniAPI(model, member: $0).get("/cluster") }.joined(separator: " || ")
        let etcd = Etcdctl(model, client: .patroni, members: etcdMembers.map(model.address(of:)))
        return "{ \(patroni) || true; }; echo; echo \(separator); "
            + etcd("--dial-timeout=2s --command-timeout=3s endpoint health -w json") + " 2>/dev/null || true"
    }

    /// The probe's output as Patroni's JSON and etcd's JSON.
    static func parts(_ output: ProbeOutput) -> (cluster: String, etcd: String) {
        let parts = output.text.components(separatedBy: separator)
        return (
            parts[0].trimmingCharacters(in: .whitespacesAndNewlines),
            parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespacesAndNewlines) : ""
        )
    }

    /// How many endpoints etcd's `endpoint health -w json` calls healthy.
    static func healthyEtcd(_ json: String) -> Int {
        ((try? JSONDecoder().decode([ClusterStatus.EtcdMember].self, from: Data(json.utf8))) ?? []).filter(\.health)
            .count
    }
}
