/// A plain (unquoted) YAML scalar typed as YAML 1.1 types it — as Ansible's PyYAML does: `yes` is true, `0755` is
/// 493, `1:30` is 90, `1.5` a number, `~` null. Written out by hand: matching each scalar against regular
/// expressions made large variables files slow to read.
enum YAMLScalar {
    static func value(_ text: String) -> InventoryValue {
        // Most scalars are words: only these first bytes can start a null, a boolean or a number.
        guard let first = text.utf8.first, typedFirstBytes.contains(first) else {
            return text.isEmpty ? .null : .string(text)
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON": return .bool(true)
        case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF": return .bool(false)
        default: break
        }
        if let number = integer(text) { return .int(number) }
        if let number = float(text) { return .double(number) }
        return .string(text)
    }

    private static let typedFirstBytes = Set("~nNyYtTfFoO0123456789+-.".utf8)

    /// The sign (-1 or 1) and the rest of `text`.
    private static func signed(_ text: Substring) -> (Int, Substring) {
        switch text.first {
        case "-": (-1, text.dropFirst())
        case "+": (1, text.dropFirst())
        default: (1, text)
        }
    }

    private static func integer(_ text: String) -> Int? {
        let (sign, body) = signed(Substring(text))
        guard let first = body.first, first.isASCII, first.isNumber else { return nil }
        if body.contains(":") {
            // Sexagesimal: 1:30 is 90; the first part starts with 1-9, the others are 0-59.
            let parts = body.split(separator: ":", omittingEmptySubsequences: false)
            guard first != "0", let head = digits(parts[0], radix: 10) else { return nil }
            var total = head
            for part in parts.dropFirst() {
                guard (1...2).contains(part.count), part.allSatisfy(\.isHexDigit), let value = Int(part), value < 60
                else { return nil }
                let (shifted, overflow) = total.multipliedReportingOverflow(by: 60)
                guard !overflow else { return nil }
                total = shifted + value
            }
            return sign * total
        }
        let value: Int?
        if body.hasPrefix("0b") {
            value = digits(body.dropFirst(2), radix: 2)
        } else if body.hasPrefix("0x") {
            value = digits(body.dropFirst(2), radix: 16)
        } else if first == "0" && body.count > 1 {
            value = digits(body.dropFirst(), radix: 8)
        } else {
            value = digits(body, radix: 10)
        }
        return value.map { sign * $0 }
    }

    /// `text` read in `radix`, underscores allowed between digits; nil when it holds anything else (a second
    /// sign included: `Int(_:radix:)` alone would take one).
    private static func digits(_ text: Substring, radix: Int) -> Int? {
        let plain = text.filter { $0 != "_" }
        guard !plain.isEmpty, text.first != "_", plain.allSatisfy(\.isHexDigit) else { return nil }
        return Int(plain, radix: radix)
    }

    private static func float(_ text: String) -> Double? {
        let (sign, body) = signed(Substring(text))
        switch body {
        case ".inf", ".Inf", ".INF": return Double(sign) * .infinity
        case ".nan", ".NaN", ".NAN": return text == body ? .nan : nil
        default: break
        }
        // [0-9][0-9_]*.[0-9_]* or .[0-9_]+, then an optional exponent with its sign: e+3, E-2.
        var mantissa = body
        var exponent: Substring = ""
        if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = body[..<e]
            exponent = body[body.index(after: e)...]
            guard let s = exponent.first, s == "+" || s == "-", exponent.count > 1,
                exponent.dropFirst().allSatisfy(\.isASCII), exponent.dropFirst().allSatisfy(\.isNumber)
            else { return nil }
        }
        guard let dot = mantissa.firstIndex(of: "."),
            mantissa.allSatisfy({ $0 == "." || $0 == "_" || ($0.isASCII && $0.isNumber) }),
            mantissa.filter({ $0 == "." }).count == 1
        else { return nil }
        let whole = mantissa[..<dot]
        let fraction = mantissa[mantissa.index(after: dot)...]
        if whole.isEmpty {
            guard fraction.first?.isNumber == true else { return nil }
        } else {
            guard whole.first?.isNumber == true else { return nil }
        }
        let number = Double(mantissa.filter { $0 != "_" } + (exponent.isEmpty ? "" : "e" + exponent))
        return number.map { Double(sign) * $0 }
    }
}
