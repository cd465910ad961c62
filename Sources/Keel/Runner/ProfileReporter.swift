import Foundation
import Synchronization

/// `--profile`: where a run's time went, printed after the recap. Each play's wall time (from its start to the
/// next play's), its share of the run, and its longest step — the hosts' own work (apt, initdb, a clone, a backup)
/// shows there; the rest of the play is probes, shorter steps and Keel itself (the first play's rest includes
/// connecting to its hosts).
public final class ProfileReporter: Reporter {
    private struct Play {
        var name: String
        var started: ContinuousClock.Instant
        var longest: StepReport?
    }

    private let created = ContinuousClock.now
    private let plays = Mutex<[Play]>([])
    private let write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }) {
        self.write = write
    }

    public func report(_ event: RunEvent) {
        switch event {
        case .playStarted(let name, _):
            plays.withLock { $0.append(Play(name: name, started: .now)) }
        case .step(let report):
            plays.withLock { plays in
                guard let last = plays.indices.last else { return }
                if report.seconds > plays[last].longest?.seconds ?? -1 { plays[last].longest = report }
            }
        case .finished:
            write(SecretRegistry.mask(render(ended: .now)))
        default:
            break
        }
    }

    /// The profile as printed, for a run that ended at `ended`.
    func render(ended: ContinuousClock.Instant) -> String {
        let plays = plays.withLock { $0 }
        let total = (ended - created).seconds
        func line(_ seconds: Double, _ name: String, _ detail: String) -> String {
            let share = total > 0 ? Int((seconds / total * 100).rounded()) : 0
            let padded = name.count < 36 ? name.padding(toLength: 36, withPad: " ", startingAt: 0) : name
            return String(format: "%7.1f s %3d%%  ", seconds, share) + padded + detail + "\n"
        }
        var text = "\nPROFILE (wall time by play; its longest step, and the rest: probes, shorter steps, Keel)\n"
        for (index, play) in plays.enumerated() {
            let wall = ((index + 1 < plays.count ? plays[index + 1].started : ended) - play.started).seconds
            let detail = play.longest.map {
                String(format: "  %.1f s %@: %@; rest %.1f s", $0.seconds, $0.host, $0.step, max(0, wall - $0.seconds))
            }
            text += line(wall, play.name, detail ?? "")
        }
        return text + String(format: "%7.1f s        total\n", total)
    }
}
