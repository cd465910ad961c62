import Foundation

/// One line present in a text file: it replaces the last line matching `matching` (a regular expression), or is
/// appended when none matches. The rest of the file is left as it is.
public struct LineInFile: TextFileEdit {
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

    func edited(_ text: String) throws -> String {
        var lines = textLines(text)
        if let matching {
            let regex = try NSRegularExpression(pattern: matching)
            if let index = lines.lastIndex(where: {
                regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil
            }) {
                lines[index] = line
                return lines.joined(separator: "\n") + "\n"
            }
        }
        if !lines.contains(line) { lines.append(line) }
        return lines.joined(separator: "\n") + "\n"
    }
}
