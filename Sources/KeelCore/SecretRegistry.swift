import Foundation
import Synchronization

/// Every secret value revealed in this process, so that output can be scrubbed of them even where a secret
/// slipped into text it should not be in (a command line written by a playbook, a program's error output).
public enum SecretRegistry {
    private static let values = Mutex<Set<String>>([])

    static func remember(_ value: String) {
        guard value.count >= 4 else { return }
        values.withLock { _ = $0.insert(value) }
    }

    /// `text` with every known secret value replaced by `***`.
    public static func mask(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        guard !secrets.isEmpty else { return text }
        return secrets.sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}
