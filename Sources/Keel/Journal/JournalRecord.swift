import Foundation

/// A flow's progress on one host, in `/var/lib/keel/journal/<flow>`: the run's id, its plan as one line of JSON,
/// then a line per stage begun and per stage done. The flow's stages read it (``JournalStage``), so a run killed at
/// any step resumes where it stopped; the record stays, finished or abandoned, until that flow's next run replaces
/// it. Read together, the hosts' records are the cluster's journal: a flow unfinished anywhere shows in `keel status`
/// and holds back the flows that need a cluster at rest.
public struct JournalRecord: Sendable, Equatable {
    public static let directory = "/var/lib/keel/journal"
    /// The last stage of a run that went through.
    public static let finished = "finished"
    /// The last stage of a run given up.
    public static let abandoned = "abandoned"

    /// The flow's name (`restore`, `update`): the record's file name.
    public let flow: String
    public let id: String
    /// The plan as the flow wrote it (JSON, one line).
    public let plan: String
    /// The stages done, in order.
    public let stages: [String]
    /// The stages begun (done ones among them): a stage begun and not done was stopped half-way.
    public let begun: [String]

    public var isFinished: Bool { stages.contains(Self.finished) }
    public var isAbandoned: Bool { stages.contains(Self.abandoned) }
    /// Neither finished nor abandoned: the flow stopped on this host before its end.
    public var isUnfinished: Bool { !isFinished && !isAbandoned }

    /// Whether `stage` was begun here (and perhaps not finished).
    public func began(_ stage: String) -> Bool { begun.contains(stage) || stages.contains(stage) }

    /// The record's path for `flow`.
    public static func path(_ flow: String) -> String { directory + "/" + flow }

    /// A command printing every record on the host, each after a line naming its flow (`== restore`).
    public static let readAll =
        "for f in \(directory)/*; do [ -f \"$f\" ] && printf '== %s\\n' \"${f##*/}\" && cat \"$f\"; done; true"

    /// The records ``readAll`` printed; what is not a record is left out.
    public static func parse(_ text: String) -> [JournalRecord] {
        var records: [JournalRecord] = []
        var flow: String?
        var lines: [String] = []
        func close() {
            if let flow, let record = JournalRecord(flow: flow, text: lines.joined(separator: "\n")) {
                records.append(record)
            }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("== ") {
                close()
                flow = String(line.dropFirst(3))
                lines = []
            } else {
                lines.append(line)
            }
        }
        close()
        return records
    }

    /// Reads the file's text; nil when it is empty or not a record.
    public init?(flow: String, text: String) {
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count >= 2, lines[0].hasPrefix("id: "), lines[1].hasPrefix("{") else { return nil }
        self.flow = flow
        id = String(lines[0].dropFirst(4))
        plan = lines[1]
        stages = lines.dropFirst(2).filter { $0.hasPrefix("done: ") }.map { String($0.dropFirst(6)) }
        begun = lines.dropFirst(2).filter { $0.hasPrefix("begun: ") }.map { String($0.dropFirst(7)) }
    }

    /// The plan decoded as `type`; nil when it is not one.
    public func decodedPlan<Plan: Decodable>(_ type: Plan.Type) -> Plan? {
        try? JSONDecoder().decode(type, from: Data(plan.utf8))
    }

    /// `plan` as the one line of JSON a record holds.
    public static func encode(_ plan: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(plan)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The stages done, for messages: "nothing yet" when none is.
    public var done: String { stages.isEmpty ? "nothing yet" : stages.joined(separator: ", ") }

    /// A shell test that succeeds when this host has done `stage` of run `id` of `flow`.
    static func done(_ stage: String, flow: String, id: String) -> ShellCommand {
        "[ \"$(head -1 \(path(flow)) 2>/dev/null)\" = \("id: " + id) ] && grep -qxF \("done: " + stage) \(path(flow))"
    }

    /// A command recording `stage` of `flow` as done (or, with `begun`, as begun).
    static func record(_ stage: String, flow: String, begun: Bool = false) -> ShellCommand {
        "echo \((begun ? "begun: " : "done: ") + stage) >> \(path(flow))"
    }
}
