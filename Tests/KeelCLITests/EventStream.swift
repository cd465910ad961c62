import Foundation

/// The JSON-lines event stream `keel apply --events FILE` wrote.
struct EventStream {
    let events: [[String: Any]]

    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        events = try text.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// "host: step" for each step that changed.
    var changedSteps: [String] {
        events.filter { $0["event"] as? String == "step" && $0["status"] as? String == "changed" }
            .map { "\($0["host"] ?? ""): \($0["step"] ?? "")" }
    }

    /// "host: handler" for each handler run.
    var handlers: [String] {
        events.filter { $0["event"] as? String == "handler" }.map { "\($0["host"] ?? ""): \($0["handler"] ?? "")" }
    }

    /// Changed count per host from the recap.
    var changedPerHost: [String: Int] {
        let hosts = events.last { $0["event"] as? String == "recap" }?["hosts"] as? [String: [String: Int]] ?? [:]
        return hosts.mapValues { $0["changed"] ?? -1 }
    }
}
