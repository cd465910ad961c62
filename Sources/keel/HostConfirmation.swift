import ArgumentParser
import Foundation

/// The confirmation a flow that takes hosts away needs: their names typed at a prompt, or each given with
/// `--yes HOST` for scripts. Anything else changes nothing.
struct HostConfirmation: ParsableArguments {
    @Option(name: .customLong("yes"), help: "Confirm without a prompt: repeat each host being removed.")
    var confirmed: [String] = []

    /// Refuses at once, before any host is contacted, `--yes` naming other hosts than `hosts`, and a run that
    /// could never be confirmed (no `--yes`, no terminal).
    func checkEarly(_ hosts: [String], for flow: String) throws {
        if !confirmed.isEmpty { return try check(hosts) }
        if isatty(STDIN_FILENO) != 1 {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add --yes HOST for each host")
        }
    }

    /// Returns when `hosts` are confirmed; throws, naming what was given, otherwise. `flow` names the command.
    func require(_ hosts: [String], for flow: String) throws {
        guard confirmed.isEmpty else { return try check(hosts) }
        guard let typed = Terminal.ask("Type the host name(s) to remove (\(hosts.joined(separator: " "))): ") else {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add --yes HOST for each host")
        }
        guard typed.split(separator: " ").map(String.init).sorted() == hosts.sorted() else {
            throw CLIError("'\(typed)' does not name the hosts to remove: nothing was changed")
        }
    }

    private func check(_ hosts: [String]) throws {
        guard confirmed.sorted() == hosts.sorted() else {
            throw CLIError(
                "--yes names \(confirmed.joined(separator: " ")), not the hosts to remove (\(hosts.joined(separator: " "))): nothing was changed"
            )
        }
    }
}
