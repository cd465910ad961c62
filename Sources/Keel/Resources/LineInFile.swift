import Foundation
import KeelSSH

/// One line present in a text file: it replaces the last line matching `matching` (a regular expression), or is
/// appended when none matches. The rest of the file is left as it is.
public struct LineInFile: Resource {
    public var path: String
    public var line: String
    public var matching: String?
    public var mode: UInt32

    public init(_ path: String, line: String, matching: String? = nil, mode: UInt32 = 0o644) {
        self.path = path
        self.line = line
        self.matching = matching
        self.mode = mode
    }

    public var description: String { "line in \(path)" }

    public var probe: String {
        "if [ -f \(shellQuote(path)) ]; then stat --printf 'mode=%a\\nowner=%U\\ngroup=%G\\n' \(shellQuote(path)); echo \"content=$(base64 -w0 < \(shellQuote(path)))\"; else echo missing=1; fi"
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        let current = fields["content"].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let wanted = try edited(current)
        guard wanted != current || fields["missing"] != nil else { return [] }
        return [Change(
            fields["missing"] != nil ? "create with the line" : "set the line",
            commands: ["upload \(path)"], content: ContentChange(path: path, desired: Array(wanted.utf8), isSecret: false))]
    }

    /// `text` with the line in place.
    func edited(_ text: String) throws -> String {
        var lines = text.isEmpty ? [] : text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        if let matching {
            let regex = try NSRegularExpression(pattern: matching)
            if let index = lines.lastIndex(where: { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }) {
                lines[index] = line
                return lines.joined(separator: "\n") + "\n"
            }
        }
        if !lines.contains(line) { lines.append(line) }
        return lines.joined(separator: "\n") + "\n"
    }

    public func apply(_ changes: [Change], on host: HostExecutor) async throws {
        guard let content = changes.compactMap(\.content).first else { return }
        try await host.upload(content.desired, to: path, mode: mode, owner: nil, group: nil)
    }
}
