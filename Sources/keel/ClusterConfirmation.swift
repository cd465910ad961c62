import ArgumentParser
import Foundation

/// The confirmation a flow that replaces or removes a whole cluster's data needs: the cluster's name typed at a
/// prompt, or given with `--confirm NAME` for scripts. Anything else changes nothing.
struct ClusterConfirmation {
    /// The name given on the command line, if any.
    let given: String?
    /// What is named: `cluster`, or `stanza` for the backups.
    let naming: String

    init(_ given: String?, naming: String = "cluster") {
        self.given = given
        self.naming = naming
    }

    private var option: String { naming == "cluster" ? "--confirm" : "--confirm-backups" }

    /// Refuses at once, before any host is contacted, a given name other than `name` (the inventory's; nil when
    /// it cannot be known yet), and a run that could never be confirmed (no option, no terminal).
    func checkEarly(_ name: String?, for flow: String) throws {
        if let given, let name { try check(given, against: name) }
        if given == nil, isatty(STDIN_FILENO) != 1 {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add \(option) \(name ?? "NAME")")
        }
    }

    /// Returns when `name` is confirmed; throws, naming what was given, otherwise. `flow` names what asks.
    func require(_ name: String, for flow: String) throws {
        if let given { return try check(given, against: name) }
        guard let typed = Terminal.ask("Type the \(naming)'s name (\(name)) to go on: ") else {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add \(option) \(name)")
        }
        guard typed == name else { throw CLIError("'\(typed)' is not the \(naming)'s name: nothing was changed") }
    }

    private func check(_ given: String, against name: String) throws {
        guard given == name else {
            throw CLIError("\(option) \(given) does not name the \(naming) (\(name)): nothing was changed")
        }
    }
}
