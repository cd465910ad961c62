import Foundation
import Synchronization

/// Writes every event as one JSON object per line (`--events FILE`), for CI and other tools.
public final class EventLog: Reporter {
    private let handle: FileHandle
    private let lock = Mutex(())

    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw ResourceError("cannot write the event log \(path)") }
        self.handle = handle
    }

    public func report(_ event: RunEvent) {
        guard var object = Self.object(event) else { return }
        object["time"] = ISO8601DateFormatter().string(from: Date())
        // Masked before JSON escapes a secret's `/`, `"` or `\\` out of the registry's sight.
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: Self.masked(object), options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        let line = String(decoding: data, as: UTF8.self) + "\n"
        lock.withLock { _ in handle.write(Data(line.utf8)) }
    }

    /// `value` with every string in it masked.
    private static func masked(_ value: Any) -> Any {
        switch value {
        case let text as String: return SecretRegistry.mask(text)
        case let list as [Any]: return list.map(masked)
        case let object as [String: Any]: return object.mapValues(masked)
        default: return value
        }
    }

    private static func object(_ event: RunEvent) -> [String: Any]? {
        switch event {
        case .playStarted(let name, let hosts):
            return ["event": "play", "play": name, "hosts": hosts]
        case .step(let report):
            var object: [String: Any] = [
                "event": "step", "host": report.host, "play": report.play, "step": report.step,
                "status": report.status.rawValue, "changes": report.changes, "commands": report.commands,
                "seconds": report.seconds,
            ]
            if let error = report.error { object["error"] = error }
            return object
        case .handler(let host, let name, let status, let error):
            return [
                "event": "handler", "host": host, "handler": name, "status": status.rawValue,
                "error": error ?? NSNull(),
            ]
        case .unreachable(let host, let error):
            return ["event": "unreachable", "host": host, "error": error]
        case .stepRunning, .stepOutput:
            // The step's own event follows with its time; the JSON lines carry outcomes only.
            return nil
        case .command(let host, let command, let exitStatus, _, _):
            return ["event": "command", "host": host, "command": command, "exit_status": exitStatus]
        case .finished(let recap):
            let hosts = recap.hosts.mapValues { counts in
                [
                    "ok": counts.ok, "changed": counts.changed, "failed": counts.failed, "skipped": counts.skipped,
                    "unreachable": counts.unreachable,
                ]
            }
            return ["event": "recap", "hosts": hosts, "seconds": recap.seconds, "check": recap.checkMode]
        }
    }
}

/// Sends each event to several reporters.
public struct Reporters: Reporter {
    public let all: [any Reporter]
    public init(_ all: [any Reporter]) { self.all = all }
    public func report(_ event: RunEvent) { for reporter in all { reporter.report(event) } }
}
