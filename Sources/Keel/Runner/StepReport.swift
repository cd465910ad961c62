/// One step on one host: its outcome, what changed (or would, under `--check`), and how long it took.
public struct StepReport: Sendable, Codable {
    public var host: String
    public var play: String
    public var step: String
    public var status: StepStatus
    public var changes: [String]
    /// Commands apply ran or would run.
    public var commands: [String]
    /// Unified diffs of file contents, when asked for.
    public var diffs: [String]
    public var seconds: Double
    public var error: String?
}
