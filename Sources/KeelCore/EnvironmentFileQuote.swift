/// Quotes `value` for a systemd `EnvironmentFile` line (`NAME=value`), so that systemd reads it back unchanged:
/// plain values stay as they are; others go in double quotes, with `\`, `"`, `$` and `` ` `` escaped. Values must
/// not hold control characters (a newline would end the assignment); callers refuse them first.
public func environmentFileQuote(_ value: String) -> String {
    if !value.isEmpty, value.unicodeScalars.allSatisfy({ safeEnvironmentScalars.contains($0) }) { return value }
    var quoted = "\""
    for character in value {
        if "\\\"$`".contains(character) { quoted.append("\\") }
        quoted.append(character)
    }
    return quoted + "\""
}

private let safeEnvironmentScalars = Set(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_".unicodeScalars)
