/// What one resource's probe printed.
public struct ProbeOutput: Sendable, Equatable {
    /// Standard output, without a final newline.
    public var text: String

    public init(text: String) { self.text = text }

    /// `key=value` lines as a dictionary (later keys win).
    public var fields: [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }
}
