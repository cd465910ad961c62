/// A block of lines in a text file between `# BEGIN KEEL <name>` and `# END KEEL <name>` markers: replaced in
/// place when the markers are there, appended otherwise. The rest of the file is left as it is.
public struct BlockInFile: TextFileEdit {
    public var path: String
    public var name: String
    public var block: String
    public var mode: UInt32

    public init(_ path: String, name: String, block: String, mode: UInt32 = 0o644) {
        self.path = path
        self.name = name
        self.block = block
        self.mode = mode
    }

    public var description: String { "block \(name) in \(path)" }

    func edited(_ text: String) throws -> String {
        let begin = "# BEGIN KEEL \(name)"
        let end = "# END KEEL \(name)"
        let wanted = [begin] + textLines(block) + [end]
        var lines = textLines(text)
        if let start = lines.firstIndex(of: begin), let stop = lines[start...].firstIndex(of: end) {
            lines.replaceSubrange(start...stop, with: wanted)
        } else {
            lines += wanted
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
