/// A flow's record begun on a host (``JournalRecord``): written with the run's id and plan unless it already holds
/// them. The record of an unfinished run of the same flow is kept, and the step fails, unless `replacing` allows it.
public struct JournalBegun: Resource {
    /// Which record of the same flow a new run may take the place of.
    public enum Replacing: Sendable {
        /// A finished or abandoned one only.
        case over
        /// That, or the unfinished run with this id (a restore to a new target).
        case run(String)
        /// Any: the new run picks up whatever the unfinished one left (an update brings the host back first).
        case any
    }

    public let flow: String
    public let id: String
    /// The plan, as ``JournalRecord/encode(_:)`` writes it.
    public let plan: String
    public let replacing: Replacing

    public init(flow: String, id: String, plan: String, replacing: Replacing = .over) {
        self.flow = flow
        self.id = id
        self.plan = plan
        self.replacing = replacing
    }

    public var description: String { "\(flow) begun (\(JournalRecord.path(flow)))" }

    public var probe: String { ("cat \(JournalRecord.path(flow)) 2>/dev/null || true" as ShellCommand).text }

    public func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        if let earlier = JournalRecord(flow: flow, text: output.text) {
            if earlier.id == id { return [] }
            let replaceable =
                switch replacing {
                case .over: !earlier.isUnfinished
                case .run(let unfinished): !earlier.isUnfinished || earlier.id == unfinished
                case .any: true
                }
            guard replaceable else {
                throw ResourceError(
                    "\(context.name) is in the middle of another \(flow) (\(earlier.id), done: \(earlier.done)); "
                        + "finish it first")
            }
        }
        let path = JournalRecord.path(flow)
        return [
            Change(
                "begin \(id)",
                .shell(
                    "mkdir -p \(JournalRecord.directory) && printf '%s\\n' \("id: " + id) "
                        + "\(plan) > \(path + ".new") && mv \(path + ".new") \(path)"))
        ]
    }
}
