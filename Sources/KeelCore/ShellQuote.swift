import Foundation

/// Quotes `word` for POSIX `sh` so that it reaches the command as one literal argument.
public func shellQuote(_ word: String) -> String {
    if !word.isEmpty, word.unicodeScalars.allSatisfy({ safeShellScalars.contains($0) }) { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

private let safeShellScalars = Set(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_".unicodeScalars)
