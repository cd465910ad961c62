import Foundation
import Keel

/// A restore's progress on one host, in `/var/lib/keel/restore`: the restore's id, its plan as JSON, then a line
/// per stage done. Every stage of a restore reads it, so a run killed at any step resumes where it stopped, and a
/// finished restore stays recorded (``RestoreSurvey`` and `keel status` read it).
public struct RestoreProgress: Sendable {
    public static let path = "/var/lib/keel/restore"
    /// The last stage, written on every host once the restore is whole.
    static let finished = "finished"
    /// Written instead on every host of a restore given up before any data was replaced.
    static let abandoned = "abandoned"

    public var plan: RestorePlan
    /// The stages done, in order.
    public var stages: [String]
    /// The stages begun (done ones among them): a stage begun and not done was stopped half-way.
    public var begun: [String]

    public var isFinished: Bool { stages.contains(Self.finished) }
    public var isAbandoned: Bool { stages.contains(Self.abandoned) }

    /// Whether `stage` was begun here (and perhaps not finished).
    func began(_ stage: String) -> Bool { begun.contains(stage) || stages.contains(stage) }

    /// A line for `keel status`.
    public var summary: String {
        "last restore: \(plan.target.description) from backup set \(plan.set.label) on \(plan.restoreHost) "
            + "(planned \(plan.planned.formatted(.iso8601)))"
            + (isFinished
                ? ""
                : isAbandoned
                    ? " was abandoned"
                    : " is UNFINISHED (done: \(stages.isEmpty ? "nothing" : stages.joined(separator: ", "))): "
                        + "run keel restore with that target again, another target, or --abandon")
    }

    /// A command printing the file, or nothing where there is none.
    static let read = "cat \(path) 2>/dev/null || true"

    /// Reads the file's text; nil when it is empty or not a restore's progress.
    public init?(_ text: String) {
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count >= 2, lines[0].hasPrefix("id: "),
            let plan = try? JSONDecoder().decode(RestorePlan.self, from: Data(lines[1].utf8)),
            lines[0] == Self.header(plan).first
        else { return nil }
        self.plan = plan
        stages = lines.dropFirst(2).filter { $0.hasPrefix("done: ") }.map { String($0.dropFirst(6)) }
        begun = lines.dropFirst(2).filter { $0.hasPrefix("begun: ") }.map { String($0.dropFirst(7)) }
    }

    /// The file's first two lines for `plan`.
    static func header(_ plan: RestorePlan) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(plan)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ["id: \(plan.id)", json]
    }

    /// A shell test that succeeds when this host has done `stage` of `plan`.
    static func done(_ stage: String, of plan: RestorePlan) -> String {
        "[ \"$(head -1 \(path) 2>/dev/null)\" = \(shellQuote(header(plan)[0])) ] "
            + "&& grep -qxF \(shellQuote("done: " + stage)) \(path)"
    }

    /// A command recording `stage` of `plan` as done (or, with `begun`, as begun).
    static func record(_ stage: String, begun: Bool = false) -> String {
        "echo \(shellQuote((begun ? "begun: " : "done: ") + stage)) >> \(path)"
    }
}

/// The restore's progress file, begun on a host taking part: written with the plan unless it already holds it.
/// An unfinished restore with another plan is never overwritten, unless it is the one this plan `replaces`.
struct RestoreBegun: Resource {
    let plan: RestorePlan
    /// The id of the unfinished restore this one takes the place of (a new target for it).
    var replaces: String?

    var description: String { "restore progress \(RestoreProgress.path)" }

    var probe: String { RestoreProgress.read }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let header = RestoreProgress.header(plan)
        if let earlier = RestoreProgress(output.text) {
            if earlier.plan.id == plan.id { return [] }
            guard earlier.isFinished || earlier.isAbandoned || earlier.plan.id == replaces else {
                throw ResourceError(
                    "\(context.name) is in the middle of another restore (\(earlier.plan.id)); finish it first")
            }
        }
        let text = header.joined(separator: "\n") + "\n"
        return [
            Change(
                "begin \(plan.id)",
                .shell(
                    "mkdir -p \(shellQuote((RestoreProgress.path as NSString).deletingLastPathComponent)) && "
                        + "printf '%s' \(shellQuote(text)) > \(RestoreProgress.path).new && "
                        + "mv \(RestoreProgress.path).new \(RestoreProgress.path)"))
        ]
    }
}

/// One stage of a restore on a host: its command runs unless the progress file says it is done, recorded there as
/// begun before it runs and as done once it succeeded. A stage killed half-way runs again whole, so each stage's
/// command starts from any state the stage itself may have left.
struct RestoreStage: Resource {
    /// The restore host's stage that replaces its data, and the one after which it serves the restored data.
    static let restored = "restored"
    static let leading = "leading"

    let plan: RestorePlan
    let stage: String
    let summary: String
    let command: String
    var timeout: Duration = .seconds(600)

    var description: String { "restore: \(summary)" }

    var probe: String { "\(RestoreProgress.done(stage, of: plan)) && echo done || true" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        output.text == "done"
            ? []
            : [
                Change(
                    summary,
                    .shell(
                        "\(RestoreProgress.record(stage, begun: true)) && { \(command)\n} && \(RestoreProgress.record(stage))",
                        timeout: timeout))
            ]
    }
}
