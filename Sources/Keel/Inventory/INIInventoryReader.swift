/// Reads Ansible's INI inventory format, as postgresql_cluster writes it:
///
/// ```ini
/// [master]
/// 10.0.0.1 hostname=pg1 postgresql_exists=false
/// [postgres_cluster:children]
/// master
/// replica
/// [all:vars]
/// ansible_user='deploy'
/// ```
///
/// Values are read as Ansible reads them, as Python literals: `22` is an integer, `'22'` a string, `True` a
/// boolean, and anything else (`false`, `yes`) the plain string. Comments follow `#` on a section header, on a
/// host's line, and after a value that is a literal (`patroni_ttl=30  # seconds` is 30); lines end as Python's
/// `splitlines` ends them (CRLF included).
enum INIInventoryReader {
    private enum Section {
        case hosts(String)
        case vars(String)
        case children(String)
    }

    static func read(_ text: String, file: String, into builder: inout InventoryBuilder) throws(InventoryError) {
        var section = Section.hosts("ungrouped")
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let location = SourceLocation(file: file, line: index + 1)
            if let control = rawLine.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7f }
            ) {
                throw InventoryError(
                    "the line holds the control character U+\(String(format: "%04X", control.value))", at: location,
                    hint: "an inventory holds text: remove it (a NUL or escape byte would reach SSH and the terminal)")
            }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = try header(line, at: location)
                switch section {
                case .hosts(let group), .vars(let group), .children(let group): builder.defineGroup(group, at: location)
                }
                continue
            }
            switch section {
            case .hosts(let group):
                let words = try ShellWords.split(line, at: location)
                guard let first = words.first else { continue }
                guard !first.contains("=") else {
                    throw InventoryError(
                        "'\(first)' under [\(group)] is a setting, not a host", at: location,
                        hint: "put settings on a host's line after its name, or under [\(group):vars]")
                }
                var variables: [String: Variable] = [:]
                for word in words.dropFirst() {
                    let (key, value) = try assignment(word, at: location)
                    variables[key] = Variable(value, at: location)
                }
                for host in try HostRange.expand(first, at: location) {
                    try builder.addHost(host, to: group, variables: variables, at: location)
                }
            case .vars(let group):
                let (key, value) = try assignment(line, at: location)
                builder.setVariable(key, Variable(value, at: location), onGroup: group)
            case .children(let group):
                let child = line.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? line
                builder.addChild(child, to: group, at: location, defined: false)
            }
        }
    }

    private static func header(_ line: String, at location: SourceLocation) throws(InventoryError) -> Section {
        guard let close = line.firstIndex(of: "]"), line.index(after: line.startIndex) < close,
            line[line.index(after: close)...].trimmingCharacters(in: .whitespaces).first.map({ $0 == "#" }) ?? true
        else {
            throw InventoryError(
                "section header '\(line)' is not closed", at: location,
                hint: "write it as [group], [group:vars] or [group:children], a comment after it starting with #")
        }
        let inner = String(line[line.index(after: line.startIndex)..<close])
        let parts = inner.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let group = parts[0]
        guard !group.isEmpty, !group.contains(where: \.isWhitespace) else {
            throw InventoryError(
                "'\(group)' is not a valid group name", at: location,
                hint: "group names are single words such as etcd_cluster")
        }
        switch parts.count == 2 ? parts[1] : nil {
        case nil: return .hosts(group)
        case "vars": return .vars(group)
        case "children": return .children(group)
        case let other?:
            throw InventoryError(
                "unknown section kind ':\(other)' in [\(inner)]", at: location,
                hint: "use [\(group)], [\(group):vars] or [\(group):children]")
        }
    }

    private static func assignment(_ text: String, at location: SourceLocation) throws(InventoryError) -> (
        String, InventoryValue
    ) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw InventoryError(
                "expected NAME=VALUE, found '\(text)'", at: location,
                hint: "host variables are written name=value after the host")
        }
        let key = text[..<equals].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        return (key, literal(value))
    }

    /// Reads a value as Python's `ast.literal_eval` would, falling back to the plain string as Ansible does: a
    /// comment after a literal is Python's, after anything else it is part of the string.
    static func literal(_ text: String) -> InventoryValue {
        if let comment = unquotedHash(in: text) {
            let code = text[..<comment].trimmingCharacters(in: .whitespaces)
            if let value = pythonLiteral(code) { return value }
        }
        return pythonLiteral(text) ?? .string(text)
    }

    /// Where a `#` outside quotes starts, if one does.
    private static func unquotedHash(in text: String) -> String.Index? {
        var quote: Character?
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" {
                return index
            }
        }
        return nil
    }

    /// The Python literal `text` is, or nil when it is none.
    private static func pythonLiteral(_ text: String) -> InventoryValue? {
        if text.count >= 2, let quote = text.first, quote == "'" || quote == "\"", text.last == quote {
            return .string(String(text.dropFirst().dropLast()))
        }
        switch text {
        case "True": return .bool(true)
        case "False": return .bool(false)
        case "None": return .null
        default: break
        }
        // Python reads no integer with a leading zero (0123 stays the string "0123"), except zero itself.
        let digits = text.drop { $0 == "-" || $0 == "+" }
        let leadingZero = digits.count > 1 && digits.first == "0" && digits.contains { $0 != "0" }
        if !leadingZero, let number = Int(text) { return .int(number) }
        if text.contains("."), let number = Double(text) { return .double(number) }
        if let first = text.first, first == "[" || first == "{",
            let node = try? YAMLComposer.compose(text, budget: 4 * text.utf8.count + 100, nodeDepth: 0)
        {
            return node.value
        }
        return nil
    }
}
