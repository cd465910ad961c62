import Dispatch
import Foundation
import Keel

/// Ctrl-C during a run: the first asks it to stop between steps (what is in flight finishes, with its handlers),
/// the second cancels the steps in flight. Each says so on standard error.
final class Interrupts {
    private let source: any DispatchSourceSignal

    init(stop: StopRequest, run: Task<Recap, any Error>) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if stop.isRequested {
                Terminal.writeError("\nCtrl-C again: aborting the steps in flight\n")
                run.cancel()
            } else {
                Terminal.writeError("\nCtrl-C: stopping after the steps in flight (Ctrl-C again aborts them)\n")
                stop.request()
            }
        }
        source.resume()
    }

    /// Ctrl-C ends keel again, as before the run.
    func end() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
