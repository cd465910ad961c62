import ArgumentParser

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

    /// Returns when `name` is confirmed; throws, naming what was given, otherwise. `flow` names what asks.
    func require(_ name: String, for flow: String) throws {
        let option = naming == "cluster" ? "--confirm" : "--confirm-backups"
        if let given {
            guard given == name else {
                throw CLIError("\(option) \(given) does not name the \(naming) (\(name)): nothing was changed")
            }
            return
        }
        guard let typed = Terminal.ask("Type the \(naming)'s name (\(name)) to go on: ") else {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add \(option) \(name)")
        }
        guard typed == name else { throw CLIError("'\(typed)' is not the \(naming)'s name: nothing was changed") }
    }
}
