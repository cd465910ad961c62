import Foundation

/// One run of the `keel` executable: its exit status and combined output.
///
/// Shown in an expectation's message as what explains a failure — its failed steps and its last lines — so that a
/// report cut to its first lines (CI's excerpt) still names the cause.
struct KeelRun: CustomStringConvertible {
    let status: Int32
    let output: String

    /// The output as a terminal shows it, without its escape sequences (colours, the live lines' redraws).
    var screen: String {
        output.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
    }

    /// The failures first (a report may keep only a message's first lines), then the changes, then the last lines.
    var description: String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.suffix(40)
        let failures = Self.notable(lines[...], changes: false)
        let notable = Self.notable(lines.dropLast(tail.count), changes: true)
        let shown: [Substring] =
            (failures.isEmpty ? [] : Array(failures.prefix(20)) + ["…"])
            + (notable.isEmpty ? [] : Array(notable.suffix(20)) + ["…"]) + Array(tail)
        return "exit \(status), \(lines.count) lines\(lines.count > tail.count ? ", the last" : ""):\n"
            + shown.joined(separator: "\n")
    }

    /// The lines that explain a failed expectation: failed steps (and, with `changes`, changed steps) with the
    /// lines listed under them, and errors. On a terminal the status is coloured: the text is read without its
    /// escape sequences.
    private static func notable(_ lines: ArraySlice<Substring>, changes: Bool) -> [Substring] {
        var kept: [Substring] = []
        var underNotableStep = false
        for line in lines {
            let plain = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            if plain.hasPrefix("      - ") || plain.hasPrefix("      error: ") {
                if underNotableStep { kept.append(line) }
                continue
            }
            underNotableStep = plain.contains("| FAILED |") || (changes && plain.contains("| changed |"))
            if underNotableStep || plain.hasPrefix("error:") { kept.append(line) }
        }
        return kept
    }
}
