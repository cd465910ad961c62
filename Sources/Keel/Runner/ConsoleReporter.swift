import Foundation
import Synchronization

/// Live, human-readable progress: a line per step per host as it finishes (with colours on a terminal, plain
/// when piped), the plan's changes and diffs, and a recap per host with the slowest steps. A step that runs long
/// is shown while it runs: on a terminal in a block of live lines at the bottom (``LiveSteps``) with the last line
/// its command printed, otherwise once, when it has run ``RunOptions/slowStep``, so that a log shows where a run
/// waits.
public final class ConsoleReporter: Reporter {
    public enum Verbosity: Int, Sendable { case normal, commands, output }

    private let verbosity: Verbosity
    private let colors: Bool
    private let write: @Sendable (String) -> Void
    private let lock = Mutex(())
    private let live: LiveSteps?

    /// - Parameters:
    ///   - live: whether running steps are redrawn in place (a terminal); `noticeDelay` is how long a step has run
    ///     when the run says it runs.
    ///   - write: where the text goes; standard output by default.
    public init(
        verbosity: Verbosity = .normal,
        colors: Bool = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil,
        live: Bool = false, noticeDelay: Duration = RunOptions().slowStep,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }
    ) {
        self.verbosity = verbosity
        self.colors = colors
        self.write = write
        let dim: @Sendable (String) -> String = { colors ? "\u{1B}[2m\($0)\u{1B}[0m" : $0 }
        self.live = live ? LiveSteps(noticeDelay: noticeDelay, dim: dim, write: write) : nil
    }

    public func report(_ event: RunEvent) {
        if let live {
            switch event {
            case .stepRunning(let host, _, let step):
                return live.running(SecretRegistry.mask(step), on: host)
            case .stepOutput(let host, let line):
                return live.printed(terminalSafe(SecretRegistry.mask(line)), on: host)
            case .step(let report):
                return live.write(above: SecretRegistry.mask(render(event)), finished: report.host)
            case .finished:
                live.end()
            default:
                break
            }
            let text = SecretRegistry.mask(render(event))
            if !text.isEmpty { live.write(above: text) }
            return
        }
        let text = SecretRegistry.mask(render(event))
        guard !text.isEmpty else { return }
        lock.withLock { _ in write(text) }
    }

    private func render(_ event: RunEvent) -> String {
        switch event {
        case .playStarted(let name, let hosts):
            return "\n" + paint("PLAY \(name)", .bold)
                + " [\(hosts.isEmpty ? "no hosts" : hosts.joined(separator: ", "))]\n"
        case .step(let report):
            return render(report)
        case .stepRunning(let host, _, let step):
            return "\(host) | \(paint("running", .dim)) | \(step) …\n"
        case .stepOutput:
            // Only a terminal's live lines show it: a log keeps what ran and how it ended.
            return ""
        case .handler(let host, let name, let status, let error):
            return "\(host) | \(label(status)) | handler \(name)\(error.map { " — \($0)" } ?? "")\n"
        case .unreachable(let host, let error):
            return "\(host) | \(paint("UNREACHABLE", .red)) | \(error)\n"
        case .command(let host, let command, let exitStatus, let stdout, let stderr):
            guard verbosity != .normal else { return "" }
            var text = "\(host) | $ \(command)  → exit \(exitStatus)\n"
            if verbosity == .output {
                text += stdout.split(separator: "\n").map { "    \($0)\n" }.joined()
                text += stderr.split(separator: "\n").map { "    stderr: \($0)\n" }.joined()
            }
            return text
        case .finished(let recap):
            return render(recap)
        }
    }

    private func render(_ report: StepReport) -> String {
        var text = "\(report.host) | \(label(report.status)) | \(report.step)"
        if report.seconds >= 0.5 { text += String(format: " (%.1f s)", report.seconds) }
        text += "\n"
        for change in report.changes { text += "      - \(change)\n" }
        if verbosity != .normal { for command in report.commands { text += "      $ \(command)\n" } }
        for diff in report.diffs {
            text += diff.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let painted =
                    line.hasPrefix("+")
                    ? paint(String(line), .green) : line.hasPrefix("-") ? paint(String(line), .red) : String(line)
                return "        \(painted)\n"
            }.joined()
        }
        if let error = report.error { text += "      " + paint("error: ", .red) + error + "\n" }
        return text
    }

    private func render(_ recap: Recap) -> String {
        var text = "\n" + paint(recap.checkMode ? "PLAN RECAP (--check: nothing was changed)" : "RECAP", .bold) + "\n"
        let width = recap.order.map(\.count).max() ?? 0
        for host in recap.order {
            let counts = recap.hosts[host] ?? Recap.Counts()
            let name = host.padding(toLength: width, withPad: " ", startingAt: 0)
            let changed = recap.checkMode ? "would change=\(counts.changed)" : "changed=\(counts.changed)"
            text +=
                "\(name) : ok=\(counts.ok) \(counts.changed > 0 ? paint(changed, .yellow) : changed) "
                + "failed=\(counts.failed > 0 ? paint(String(counts.failed), .red) : "0") skipped=\(counts.skipped) "
                + "unreachable=\(counts.unreachable > 0 ? paint(String(counts.unreachable), .red) : "0")\n"
        }
        let slow = recap.slowest.filter { $0.seconds >= 0.05 }
        if !slow.isEmpty {
            text += "slowest steps:\n"
            for timing in slow {
                text += String(format: "  %6.2f s  %@  %@\n", timing.seconds, timing.host, timing.step)
            }
        }
        if recap.interrupted {
            let left = recap.order.compactMap { host in recap.notRun[host].map { "\(host) \($0)" } }
            text +=
                paint("INTERRUPTED", .red) + ": stopped between steps; what ran is above"
                + (left.isEmpty ? "" : ", steps not run: " + left.joined(separator: ", ")) + "\n"
        }
        text += String(format: "total %.2f s\n", recap.seconds)
        return text
    }

    private func label(_ status: StepStatus) -> String {
        switch status {
        case .ok: paint("ok", .green)
        case .changed: paint("changed", .yellow)
        case .failed: paint("FAILED", .red)
        case .skipped: paint("skipped", .cyan)
        }
    }

    private enum Color: String { case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36" }

    private func paint(_ text: String, _ color: Color) -> String {
        colors ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}
