/// A path whose type, mode, owner and group (and, for a regular file, SHA-256) a step's probe wants.
///
/// The engine reads those of every step it probes at once — one `stat`, one `sha256sum` — rather than two
/// processes per path (a host starts processes slowly, and a play may write a hundred files), and adds them to the
/// step's probe output as `kind=`, `mode=`, `owner=`, `group=` and `sha256=` lines; `kind=missing` when nothing is
/// at the path, `kind=other` for a link or anything but a file or directory (never followed, never hashed).
public struct PathInspection: Sendable, Hashable {
    public var path: String
    public var checksum: Bool

    public init(_ path: String, checksum: Bool) {
        self.path = path
        self.checksum = checksum
    }

    /// The shell reading `inspections`: stat's records (raw mode in hex, so no locale can rename a type), each
    /// ended by NUL as a path cannot hold one, printed before `separator` (no `stat` started when the shell's own
    /// tests find none of the paths, as on a first run); then sha256sum's lines for the regular files among those
    /// with `checksum`, checked not to be links first.
    static func script(_ inspections: [PathInspection], separator: String) -> String {
        let paths = Set(inspections.map(\.path)).sorted().map(shellQuote).joined(separator: " ")
        let summed = Set(inspections.filter(\.checksum).map(\.path)).sorted().map(shellQuote).joined(separator: " ")
        var script =
            "e=; for p in \(paths); do { [ -e \"$p\" ] || [ -L \"$p\" ]; } && { e=1; break; }; done; "
            + "[ -z \"$e\" ] || stat --printf '%f|%a|%U|%G|%n\\0' -- \(paths) 2>/dev/null; \(separator)"
        if !summed.isEmpty {
            script +=
                "\n(set --; for f in \(summed); do [ -f \"$f\" ] && [ ! -L \"$f\" ] && set -- \"$@\" \"$f\"; done; "
                + "[ $# = 0 ] || sha256sum -- \"$@\") 2>/dev/null"
        }
        return script
    }

    /// What the script of ``script(_:separator:)`` printed, by path.
    struct Found {
        private var records: [String: [Substring]] = [:]
        private var sums: [String: String] = [:]

        /// From stat's output (before the separator) and sha256sum's (after it).
        init(stat: Substring, sums sumLines: Substring) {
            for record in stat.split(separator: "\0") {
                let fields = record.split(separator: "|", maxSplits: 4, omittingEmptySubsequences: false)
                guard fields.count == 5 else { continue }
                records[String(fields[4])] = fields
            }
            for line in sumLines.split(separator: "\n") {
                // GNU marks a line whose name it escaped (a backslash or newline in it) with a leading backslash.
                let escaped = line.hasPrefix("\\")
                let text = escaped ? line.dropFirst() : line
                guard text.count > 66 else { continue }
                let name = text.dropFirst(66)
                sums[escaped ? Self.unescaped(name) : String(name)] = String(text.prefix(64))
            }
        }

        init() {}

        /// The `key=value` lines for `inspection`.
        func lines(for inspection: PathInspection) -> String {
            guard let fields = records[inspection.path], let raw = UInt32(fields[0], radix: 16) else {
                return "kind=missing"
            }
            let attributes = "mode=\(fields[1])\nowner=\(fields[2])\ngroup=\(fields[3])"
            switch raw & 0o170000 {
            case 0o040000:
                return "kind=directory\n" + attributes
            case 0o100000:
                let sum = inspection.checksum ? sums[inspection.path].map { "\nsha256=\($0)" } ?? "\nsha256=" : ""
                return "kind=file\n" + attributes + sum
            default:
                return "kind=other"
            }
        }

        private static func unescaped(_ name: Substring) -> String {
            var result = ""
            var iterator = name.makeIterator()
            while let character = iterator.next() {
                guard character == "\\", let next = iterator.next() else {
                    result.append(character)
                    continue
                }
                result.append(next == "n" ? "\n" : next)
            }
            return result
        }
    }
}
