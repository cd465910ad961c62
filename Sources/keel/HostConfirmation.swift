import ArgumentParser

/// `--yes HOST`, the command-line answer of a flow that takes hosts away (see ``ConfirmationAnswers``).
struct HostConfirmation: ParsableArguments {
    @Option(name: .customLong("yes"), help: "Confirm without a prompt: repeat each host being removed.")
    var confirmed: [String] = []
}
