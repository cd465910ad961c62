import ArgumentParser
import Keel
import Playbooks

struct RemoveBalancerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: RemoveBalancerFlow.name, abstract: RemoveBalancerFlow.summary,
        discussion:
            "Shows what it will do, then asks for the host names; --yes HOST answers for scripts. The last balancer is refused. A balancer holding the VIP hands it over before anything else changes."
    )

    @OptionGroup var options: ClusterFlowOptions

    @OptionGroup var confirmation: HostConfirmation

    @Argument(help: "The balancers to remove (inventory names).")
    var hosts: [String] = []

    func run() async throws {
        try await options.run(RemoveBalancerFlow(hosts: hosts), answers: .init(hosts: confirmation.confirmed))
    }
}
