import Foundation

/// One run of the `keel` executable: its exit status and combined output.
///
/// Shown in an expectation's message as what explains a failure — its failed steps and its last lines — so that a
/// report cut to its first lines (CI's excerpt) still names the cause.
struct KeelRun: CustomStringConvertible {
    let status: Int32
    let output: String

    var description: String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.suffix(40)
        // On a terminal the status is coloured: look at the text without its escape sequences.
        let failed = lines.dropLast(tail.count).filter { line in
            let plain = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            return plain.contains("| FAILED |") || plain.hasPrefix("error:")
        }
        let shown = failed.isEmpty ? tail : failed.suffix(10) + ["…"] + tail
        return "exit \(status), \(lines.count) lines\(lines.count > tail.count ? ", the last" : ""):\n"
            + shown.joined(separator: "\n")
    }
}
