import ArgumentParser
import Foundation
import Keel

/// An error shown to the user as it is, followed by exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Terminal interaction: prompts and output that works both on a terminal and in a pipe.
enum Terminal {
    /// Asks for a secret on the controlling terminal without echo; nil when there is no terminal.
    static func askSecret(_ prompt: String) -> Secret? {
        guard isatty(STDIN_FILENO) == 1, let typed = getpass(prompt) else { return nil }
        return Secret(String(cString: typed))
    }

    /// Asks for a line on the terminal; nil when there is no terminal.
    static func ask(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        write(prompt)
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }

    /// Writes `text` to standard output at once (hosts report from many tasks).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
