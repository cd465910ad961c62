/// The one way Keel writes a value into an INI-style file (pgbouncer.ini, pgBackRest's configuration): neither
/// reads any quoting, and each ends a value at the line's end and trims its spaces, so the value is written as it
/// is, or refused when it would not read back the same.
/// - Throws: ``INIValueError`` for a control character (a line break would start another setting) or for
///   spaces at either end.
public func iniValue(_ value: String) throws(INIValueError) -> String {
    if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
        throw INIValueError(value: value, reason: "it holds a control character or line break")
    }
    if value.first?.isWhitespace == true || value.last?.isWhitespace == true {
        throw INIValueError(value: value, reason: "it starts or ends with a space, which the reader would drop")
    }
    return value
}

/// A value that an INI-style file cannot hold as it is.
public struct INIValueError: Error, Sendable, CustomStringConvertible {
    public var value: String
    public var reason: String
    public var description: String { "\(quotedForDisplay(value)) cannot be written to an INI file: \(reason)" }
}
