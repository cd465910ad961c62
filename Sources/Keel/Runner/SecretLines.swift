/// Hides the values of lines that look like they set a secret (`password: …`, `PGPASSWORD=…`,
/// `repo1-cipher-pass=…`, `auth_pass …`) before file contents reach a diff: a file Keel does not keep secrets in
/// may have held them under another tool, and its old lines must not be printed.
enum SecretLines {
    static let markers = ["password", "passwd", "pass", "secret", "token", "private", "key"]

    /// `text` with the value of every such line written as `***`.
    static func redacted(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let lowered = line.lowercased()
            guard markers.contains(where: lowered.contains) else { return String(line) }
            // `name: value`, `name=value`, or keepalived's `name value` after the indentation.
            let start = line.firstIndex { $0 != " " && $0 != "\t" } ?? line.startIndex
            guard
                let separator = line.firstIndex(where: { $0 == ":" || $0 == "=" })
                    ?? line[start...].firstIndex(of: " ")
            else { return String(line) }
            return line[...separator] + " ***"
        }.joined(separator: "\n")
    }
}
