import ArgumentParser
import Playbooks

struct AddNodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: AddNodeFlow.name, abstract: AddNodeFlow.summary,
        discussion:
            "The running members are never restarted: they get the new members' pg_hba lines and etcd endpoints by a reload. Each new member proves a replication login to every member before its Patroni starts. --check shows every change on every host first."
    )

    @OptionGroup var options: ClusterFlowOptions

    @Flag(
        help:
            "Go on even when the running cluster is not healthy (no leader, paused, a member down, etcd short of quorum)."
    )
    var force = false

    @Argument(help: "The hosts to add (inventory names); by default those marked new_node=true.")
    var hosts: [String] = []

    func run() async throws { try await options.run(AddNodeFlow(hosts: hosts, force: force)) }
}
