import Foundation
import Synchronization

/// On a terminal, the steps still running, one line per host with how long each has run and the last line its
/// command printed, kept at the bottom of the screen and redrawn in place every second; the lines of finished steps
/// scroll above them.
final class LiveSteps: Sendable {
    private struct Running {
        var step: String
        var since: ContinuousClock.Instant
    }

    private struct State {
        var running: [String: Running] = [:]
        /// The last line each host's running step printed.
        var printed: [String: String] = [:]
        /// How many lines of the block are on the screen now.
        var drawn = 0
        var ended = false
    }

    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void
    private let dim: @Sendable (String) -> String
    /// How long a step had run when the run first said so.
    private let noticeDelay: Duration

    init(
        noticeDelay: Duration, dim: @escaping @Sendable (String) -> String,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.noticeDelay = noticeDelay
        self.dim = dim
        self.write = write
        Task.detached { [weak self] in
            while let self, !self.state.withLock(\.ended) {
                self.redraw(nil)
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// `host`'s `step` has been running for ``noticeDelay``.
    func running(_ step: String, on host: String) {
        state.withLock { $0.running[host] = Running(step: step, since: .now - noticeDelay) }
        redraw(nil)
    }

    /// `host`'s running step printed `line`; it shows from the next redraw.
    func printed(_ line: String, on host: String) {
        state.withLock { $0.printed[host] = line }
    }

    /// Writes `text` (finished steps, a recap) above the block; `host`'s step, when given, is no longer running.
    func write(above text: String, finished host: String? = nil) {
        if let host {
            state.withLock { state in
                state.running[host] = nil
                state.printed[host] = nil
            }
        }
        redraw(text)
    }

    /// Erases the block for good: the run is over.
    func end() {
        state.withLock { state in
            if state.drawn > 0 { write(Self.erase(state.drawn)) }
            state.drawn = 0
            state.running = [:]
            state.printed = [:]
            state.ended = true
        }
    }

    /// Erases the block, writes `text` (if any) and draws the block again, in one write.
    private func redraw(_ text: String?) {
        state.withLock { state in
            guard !state.ended else {
                if let text { write(text) }
                return
            }
            guard text != nil || !state.running.isEmpty || state.drawn > 0 else { return }
            let width = Self.columns - 1
            let lines = state.running.sorted { $0.key < $1.key }.map { host, running in
                // A long step name and what its command printed share the room, each cut to its part; never the
                // time it has run.
                let head = "\(host) | running | "
                let tail = " … \(Int((ContinuousClock.now - running.since).components.seconds)) s"
                let room = max(8, width - head.count - tail.count)
                let printed = state.printed[host].map { Self.separator + $0 } ?? ""
                let stepRoom = printed.isEmpty ? room : max(min(running.step.count, room / 2), room - printed.count)
                var line = head + Self.cut(running.step, to: stepRoom) + tail
                if !printed.isEmpty, room - stepRoom > Self.separator.count + 4 {
                    line += Self.cut(printed, to: room - stepRoom)
                }
                return dim(line)
            }
            write(Self.erase(state.drawn) + (text ?? "") + lines.map { $0 + "\n" }.joined())
            state.drawn = lines.count
        }
    }

    /// `text`, ending in `…` where it is longer than `room`.
    private static func cut(_ text: String, to room: Int) -> String {
        text.count > room ? String(text.prefix(room - 1)) + "…" : text
    }

    /// Between a live line's time and what its command printed last.
    static let separator = "  ▸ "

    /// Moves up `lines` lines and clears to the end of the screen.
    private static func erase(_ lines: Int) -> String { lines == 0 ? "" : "\u{1B}[\(lines)F\u{1B}[J" }

    /// The terminal's width (80 when it does not say).
    private static var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 else { return 80 }
        return Int(size.ws_col)
    }
}
