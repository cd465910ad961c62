import ArgumentParser
import Playbooks

struct DeployCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: DeployFlow.name, abstract: DeployFlow.summary,
        discussion:
            "Reads postgresql_cluster's groups and variables. Passwords left empty are generated once and kept in .keel-secrets.yml (0600) beside the inventory."
    )

    @OptionGroup var options: ClusterFlowOptions

    func run() async throws { try await options.run(DeployFlow()) }
}
