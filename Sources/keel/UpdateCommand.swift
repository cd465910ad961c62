import ArgumentParser
import Playbooks

extension UpdatedComponent: ExpressibleByArgument {}

struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: UpdateFlow.name, abstract: UpdateFlow.summary,
        discussion:
            "Refreshes apt's package lists on every host and plans from what is newer there; --check shows the plan (every package, from-version → to-version, per host) and stops. Hosts already current are not touched; a run killed part way is finished by running it again."
    )

    @OptionGroup var options: ClusterFlowOptions
    @Option(
        help:
            "Update only these parts (\(UpdatedComponent.allCases.map(\.rawValue).joined(separator: ", "))); postgresql_cluster's -e target=postgres means --only postgres."
    )
    var only: [UpdatedComponent] = []

    func run() async throws {
        try await options.run(confirming: [], answers: ConfirmationAnswers()) { model, inventory, fleet in
            try await UpdateFlow.planned(only: only, model: model, inventory: inventory, fleet: try fleet())
        }
    }
}
