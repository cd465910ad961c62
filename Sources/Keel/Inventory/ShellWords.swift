/// Splits a line into words as Python's `shlex` does for an INI inventory line: whitespace separates, quotes
/// group, backslash escapes, `#` starts a comment. As Ansible splits `-e NAME=VALUE` words (`asExtraVariables`),
/// `#` is a character like any other and a Jinja block (`{{ … }}`, `{% … %}`, `{# … #}`) with spaces stays one
/// word.
enum ShellWords {
    static func split(_ line: String, at location: SourceLocation, asExtraVariables: Bool = false)
        throws(InventoryError)
        -> [String]
    {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        // The closing pair of the Jinja block the word is in (`}}`), when it is in one.
        var jinjaClose: String?
        var previous: Character?
        for character in line {
            defer { previous = character }
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if asExtraVariables, let close = jinjaClose {
                current.append(character)
                if previous.map({ "\($0)\(character)" }) == close { jinjaClose = nil }
            } else if asExtraVariables, previous == "{", let close = ["{": "}}", "%": "%}", "#": "#}"][character] {
                current.append(character)
                jinjaClose = close
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == "#" && !asExtraVariables {
                // As shlex's comments: the rest of the line goes, even within a word.
                break
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil {
            throw InventoryError("a quote is not closed on this line", at: location, hint: "close the quoted value")
        }
        if inWord { words.append(current) }
        return words
    }
}
