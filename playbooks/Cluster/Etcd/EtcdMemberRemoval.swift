import Foundation
import Keel

/// A member leaves etcd: removed from the membership by a remaining member (`member remove`, which keeps quorum
/// checks strict), then stopped on its host and its data cleared, so that it can join again later as a new member.
struct EtcdMemberRemoval: Resource {
    let model: ClusterModel
    let member: String

    private var remaining: Etcdctl {
        Etcdctl(model, members: model.etcdHosts.filter { $0 != member }.map(model.address(of:)))
    }

    var description: String { "\(member) removed from etcd's members" }

    var probe: String { EtcdMemberList.command(remaining).text }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let list = try EtcdMemberList(output.text, readFrom: context.name)
        guard let id = list.member(at: model.etcdPeerURL(of: member))?.id else { return [] }
        return [
            Change(
                "remove \(member) (\(String(id, radix: 16))) from etcd",
                .shell(remaining("member remove \(String(id, radix: 16))") + " >/dev/null"))
        ]
    }
}
