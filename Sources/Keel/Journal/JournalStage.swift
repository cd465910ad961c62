/// One stage of a flow's run on a host: its command runs unless the host's record (``JournalRecord``) says it is
/// done, recorded there as begun before it runs and as done once it succeeded. A stage killed half-way runs again
/// whole, so each stage's command starts from any state the stage itself may have left.
public struct JournalStage: Resource {
    public let flow: String
    /// The run's id, as ``JournalBegun`` wrote it.
    public let id: String
    public let stage: String
    /// What the plan says the stage does.
    public let summary: String
    public let command: ShellCommand
    public let timeout: Duration

    public init(
        flow: String, id: String, stage: String, summary: String, command: ShellCommand,
        timeout: Duration = .seconds(600)
    ) {
        self.flow = flow
        self.id = id
        self.stage = stage
        self.summary = summary
        self.command = command
        self.timeout = timeout
    }

    /// The stage that ends a run on the host: a rerun of a finished run changes nothing.
    public static func finished(flow: String, id: String, summary: String = "recorded as finished") -> JournalStage {
        JournalStage(flow: flow, id: id, stage: JournalRecord.finished, summary: summary, command: "true")
    }

    public var description: String { "\(flow): \(summary)" }

    public var probe: String { (JournalRecord.done(stage, flow: flow, id: id) + " && echo done || true").text }

    public func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text != "done" else { return [] }
        let begun = JournalRecord.record(stage, flow: flow, begun: true)
        let done = JournalRecord.record(stage, flow: flow)
        return [Change(summary, .shell("\(begun) && { \(command)\n} && \(done)", timeout: timeout))]
    }
}
