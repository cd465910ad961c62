import Foundation
import Keel
import Playbooks

/// What the command line answers to a flow's confirmations (`--confirm`, `--confirm-backups`, `--yes`): each is
/// checked against the inventory before any host is contacted where the inventory can tell, and asked for at a
/// prompt when not given. Anything else changes nothing.
struct ConfirmationAnswers {
    var cluster: String? = nil
    var stanza: String? = nil
    var hosts: [String] = []

    /// Refuses at once an answer naming something else than the inventory does, and a run that could never be
    /// confirmed (no answer, no terminal).
    func checkEarly(_ confirmation: FlowConfirmation, inventory: Inventory, for flow: String) throws {
        switch confirmation {
        case .clusterName: try ClusterConfirmation(cluster).checkEarly(ClusterModel.name(in: inventory), for: flow)
        case .stanzaName: try ClusterConfirmation(stanza, naming: "stanza").checkEarly(nil, for: "--delete-backups")
        case .hostNames(let names):
            if !hosts.isEmpty { return try checkHosts(names) }
            if isatty(STDIN_FILENO) != 1 {
                throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add --yes HOST for each host")
            }
        }
    }

    /// Returns when `confirmation` is answered for `model`; throws, naming what was given, otherwise.
    func require(_ confirmation: FlowConfirmation, model: ClusterModel, for flow: String) throws {
        switch confirmation {
        case .clusterName: try ClusterConfirmation(cluster).require(model.name, for: flow)
        case .stanzaName:
            if let name = model.backups?.stanza {
                try ClusterConfirmation(stanza, naming: "stanza").require(name, for: "--delete-backups")
            }
        case .hostNames(let names):
            guard hosts.isEmpty else { return try checkHosts(names) }
            guard let typed = Terminal.ask("Type the host name(s) to remove (\(names.joined(separator: " "))): ") else {
                throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add --yes HOST for each host")
            }
            guard typed.split(separator: " ").map(String.init).sorted() == names.sorted() else {
                throw CLIError("'\(typed)' does not name the hosts to remove: nothing was changed")
            }
        }
    }

    private func checkHosts(_ names: [String]) throws {
        guard hosts.sorted() == names.sorted() else {
            throw CLIError(
                "--yes names \(hosts.joined(separator: " ")), not the hosts to remove (\(names.joined(separator: " "))): nothing was changed"
            )
        }
    }
}
