import ArgumentParser
import Playbooks

struct SwitchoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: SwitchoverFlow.name, abstract: SwitchoverFlow.summary,
        discussion:
            "Checks the running cluster and the candidate first, and refuses with the reason when either is not ready; --check shows the plan and stops. A switchover does not stop writes beyond the moment the leader changes."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Option(help: "The replica to hand the leader's role to (by default the least lagging eligible one).")
    var to: String?

    func run() async throws {
        try await options.run(confirming: [], answers: ConfirmationAnswers()) { model, inventory, fleet in
            let status = try await ClusterStatus.gather(model, inventory: inventory, fleet: try fleet())
            return try SwitchoverFlow(status: status, model: model, to: to)
        }
    }
}
