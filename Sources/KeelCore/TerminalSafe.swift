/// `text` as it may reach a terminal: control and format characters (escapes, carriage returns, bidirectional
/// overrides) written out as `\u{1B}`, so that a value read from a file or a host cannot move the cursor, retitle
/// the window or hide what follows. Newlines too, unless `keepingNewlines`.
public func terminalSafe(_ text: String, keepingNewlines: Bool = false) -> String {
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if keepingNewlines && scalar == "\n" { return false }
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7f }
        return [.control, .format].contains(scalar.properties.generalCategory)
    }
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var safe = ""
    for scalar in text.unicodeScalars {
        if isControl(scalar) {
            safe += scalar.escaped(asASCII: true)
        } else {
            safe.unicodeScalars.append(scalar)
        }
    }
    return safe
}

/// `text` quoted for a message: terminal-safe, and cut after 80 characters with its full size named (a 1 MiB value
/// must not fill the screen).
public func quotedForDisplay(_ text: String) -> String {
    guard text.count > 80 else { return "'\(terminalSafe(text))'" }
    return "'\(terminalSafe(String(text.prefix(80))))…' [\(text.utf8.count) bytes]"
}
