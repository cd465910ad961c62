import Foundation
import Synchronization

/// Every secret value revealed in this process, so that output can be scrubbed of them even where a secret
/// slipped into text it should not be in (a command line written by a playbook, a program's error output).
public enum SecretRegistry {
    /// Each value with its UTF-8 bytes; longest first, so that a secret holding another is masked whole.
    private static let values = Mutex<[(text: String, bytes: [UInt8])]>([])

    static func remember(_ value: String) {
        guard value.count >= 4 else { return }
        let bytes = Array(value.utf8)
        values.withLock { values in
            guard !values.contains(where: { $0.text == value }) else { return }
            values.insert((value, bytes), at: values.firstIndex { $0.bytes.count < bytes.count } ?? values.endIndex)
        }
    }

    /// `text` with every known secret value replaced by `***`.
    public static func mask(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        // Every line of output passes here: looking for the secrets' bytes first leaves most lines as they are.
        let bytes = Array(text.utf8)
        guard secrets.contains(where: { bytes.firstRange(of: $0.bytes) != nil }) else { return text }
        return secrets.reduce(text) { $0.replacingOccurrences(of: $1.text, with: "***") }
    }
}
