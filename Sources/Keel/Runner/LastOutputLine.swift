import Synchronization

/// Follows a command's output as it arrives and tells each line it completes that is not blank: what a long step
/// (apt, a clone) is doing now. A carriage return ends a line too, as progress meters redraw with one.
final class LastOutputLine: Sendable {
    /// The most of one line kept: a live line shows less.
    private static let longest = 512
    private let partial = Mutex<[UInt8]>([])
    private let tell: @Sendable (String) -> Void

    init(tell: @escaping @Sendable (String) -> Void) { self.tell = tell }

    /// Hears `chunk`, the next bytes of the output.
    func take(_ chunk: [UInt8]) {
        let line: String? = partial.withLock { partial in
            partial += chunk
            let isEnd: (UInt8) -> Bool = { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
            guard let end = partial.lastIndex(where: isEnd) else {
                if partial.count > Self.longest { partial.removeLast(partial.count - Self.longest) }
                return nil
            }
            let last = partial[..<end].split(whereSeparator: isEnd).last {
                $0.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            }
            partial.removeSubrange(...end)
            return last.map { String(decoding: $0.prefix(Self.longest), as: UTF8.self) }
        }
        if let line { tell(line.trimmingCharacters(in: .whitespaces)) }
    }
}
