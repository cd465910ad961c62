import ArgumentParser

/// The confirmation a flow that replaces or removes a whole cluster's data needs: the cluster's name typed at a
/// prompt, or given with `--confirm NAME` for scripts. Anything else changes nothing.
struct ClusterConfirmation {
    /// The name given with `--confirm`, if any.
    let given: String?

    init(_ given: String?) { self.given = given }

    /// Returns when `cluster` is confirmed; throws, naming what was given, otherwise. `flow` names the command.
    func require(_ cluster: String, for flow: String) throws {
        if let given {
            guard given == cluster else {
                throw CLIError("--confirm \(given) does not name the cluster (\(cluster)): nothing was changed")
            }
            return
        }
        guard let typed = Terminal.ask("Type the cluster's name (\(cluster)) to go on: ") else {
            throw CLIError("\(flow) needs a confirmation: run it on a terminal, or add --confirm \(cluster)")
        }
        guard typed == cluster else { throw CLIError("'\(typed)' is not the cluster's name: nothing was changed") }
    }
}
