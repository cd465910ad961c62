import ArgumentParser
import Playbooks

struct AddBalancerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: AddBalancerFlow.name, abstract: AddBalancerFlow.summary,
        discussion:
            "The new balancers' HAProxy must route to the leader and the replicas before keepalived starts; every balancer's keepalived then learns its new peers (backups stopped, the VIP holder reloaded, all started one by one), so the VIP is never on two hosts. --check shows every change on every host first."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Argument(help: "The balancers to add (inventory names); by default those under [balancers] marked new_node=true.")
    var hosts: [String] = []

    func run() async throws { try await options.run(AddBalancerFlow(hosts: hosts)) }
}
