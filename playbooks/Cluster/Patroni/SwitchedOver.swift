import Foundation
import Keel

/// `candidate` leads the cluster instead of `leader`: handed over through the leader's REST API (a switchover, not
/// a failover) after a CHECKPOINT, then waited for until the candidate writes and the former leader streams
/// from it. Converged when the candidate leads; an error when a third member leads (the cluster changed since
/// the plan).
struct SwitchedOver: Resource {
    let model: ClusterModel
    let leader: String
    let candidate: String

    var description: String { "switchover from \(leader) to \(candidate)" }
    var affectsOtherResources: Bool { true }

    var probe: String { PatroniAPI.fromAnyMember(model, "/cluster") }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let members = try? ClusterStatus.Member.decode(Data(output.text.utf8)).members else {
            throw PatroniAPI.unanswered(host.name)
        }
        let leading = members.first { $0.role == "leader" }?.name
        if leading == candidate { return [] }
        guard leading == leader else {
            throw ResourceError(
                "\(leading ?? "no member") leads the cluster now, not \(leader) as planned: run keel switchover again")
        }
        let api = PatroniAPI(model, member: leader)
        let body = JSONValue.object(["leader": .string(leader), "candidate": .string(candidate)]).json
        let command = [
            model.postgres.run("CHECKPOINT") + " >/dev/null",
            api.post("/switchover", json: body, timeout: 60),
            Poll(
                until: PatroniAPI(model, member: candidate).isPrimary, seconds: 60,
                onTimeout: .fail("\(candidate) is not the primary 60 s after the switchover")
            ).description,
            Poll(
                until: api.caughtUp(model), seconds: 120,
                onTimeout: .fail("\(leader) does not stream from \(candidate) 120 s after the switchover")
            ).description,
        ].joined(separator: " && ")
        return [Change("CHECKPOINT, then hand the leader's role to \(candidate)", .shell(command))]
    }
}
