/// A command to run, guarded so that it runs only when needed: `creates` (skip when the path exists) or `unless`
/// (skip when that check succeeds). Without a guard it runs every time and is always reported as changed.
public struct Command: Resource {
    public var command: ShellCommand
    public var creates: String?
    public var unless: ShellCommand?
    /// Bytes for the command's standard input (secrets go here).
    public var input: Secret?
    /// How long the command may run.
    public var timeout: Duration
    /// What the command does, in a few words, as reports name the step (the command itself shows under `-v`).
    public var what: String?
    /// Run to its end whatever becomes of the run (``Action/detached(_:timeout:)``), for a command whose
    /// interruption would leave the host needing repair by hand (one running dpkg). It takes no input.
    public var detached: Bool

    public init(
        _ command: ShellCommand, what: String? = nil, creates: String? = nil, unless: ShellCommand? = nil,
        input: Secret? = nil, timeout: Duration = .seconds(600), detached: Bool = false
    ) {
        precondition(!detached || input == nil, "a detached command takes no input")
        self.command = command
        self.what = what
        self.creates = creates
        self.unless = unless
        self.input = input
        self.timeout = timeout
        self.detached = detached
    }

    public var description: String { what ?? "command \(command)" }

    public var probe: String {
        var checks: [ShellCommand] = []
        if let creates { checks.append("[ -e \(creates) ]") }
        if let unless { checks.append("{ \(unless) ; } >/dev/null 2>&1") }
        guard !checks.isEmpty else { return "echo guard=none" }
        let probe: ShellCommand =
            "if \(checks.joined(separator: " || ")); then echo guard=satisfied; else echo guard=unsatisfied; fi"
        return probe.text
    }

    public var alwaysChanges: Bool { creates == nil && unless == nil }
    public var affectsOtherResources: Bool { true }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.fields["guard"] != "satisfied" else { return [] }
        return [
            Change(
                "run", detached ? .detached(command, timeout: timeout) : .shell(command, input: input, timeout: timeout)
            )
        ]
    }
}
