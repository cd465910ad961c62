/// Quotes `value` for a libpq connection string (`key='value'`), so that spaces, `=` and quotes in it stay part
/// of the value and never start another keyword.
public func conninfoQuote(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
