/// Quotes `value` as a YAML double-quoted scalar, the one way Keel writes a string into a YAML file: `"`, `\` and
/// every character YAML would read as a line break or refuse (control characters, NEL, the Unicode line and
/// paragraph separators, BOM, non-characters) are escaped, so the value reads back exactly and never starts a key,
/// a comment or another line.
public func yamlQuote(_ value: String) -> String {
    var quoted = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": quoted += "\\\""
        case "\\": quoted += "\\\\"
        case "\n": quoted += "\\n"
        case "\t": quoted += "\\t"
        case _ where yamlEscapes(scalar):
            let hex = String(scalar.value, radix: 16, uppercase: true)
            quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "\""
}

private func yamlEscapes(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: true
    default: false
    }
}
