import Foundation

/// A resource that edits part of a text file and leaves the rest alone: it reads the whole file in its probe,
/// computes the wanted text, and uploads it when it differs.
protocol TextFileEdit: Resource {
    var path: String { get }
    var mode: UInt32 { get }
    /// The file's text with the edit made; must return `text` unchanged when the edit is already there.
    func edited(_ text: String) throws -> String
}

extension TextFileEdit {
    public var probe: String {
        "if [ -f \(shellQuote(path)) ]; then echo \"content=$(base64 -w0 < \(shellQuote(path)))\"; else echo missing=1; fi"
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        let current =
            fields["content"].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let wanted = try edited(current)
        guard wanted != current || fields["missing"] != nil else { return [] }
        let bytes = Array(wanted.utf8)
        return [
            Change(
                fields["missing"] != nil ? "create" : "edit",
                .upload(bytes, to: path, mode: mode, owner: nil, group: nil),
                content: ContentChange(path: path, desired: bytes, isSecret: false))
        ]
    }
}

/// The lines of `text` without the empty string a final newline leaves.
func textLines(_ text: String) -> [String] {
    var lines = text.isEmpty ? [] : text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
}
