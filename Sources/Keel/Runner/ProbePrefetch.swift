import KeelCore

/// The probes of a run's later plays, read on each host in one round trip while the first play runs: a run that
/// changes nothing then probes each host twice, not once per play.
///
/// What was read ahead stands only while nothing has been applied anywhere in the run. The first change, wait that
/// has to wait, or handler on any host discards it all (and ends reads still running), and every later play probes
/// its hosts as it starts, as without it. A play takes what was read for it only when its steps probe exactly that — the same
/// probes and paths, in the same order — and it shows each of them converged: a play that plans differently than
/// foreseen, or that has something to do (or a step it would fail, such as a server still starting when read), is
/// probed afresh at its start.
actor ProbePrefetch {
    /// What one play's steps probe on a host; with `become`, as that user.
    struct Plan: Sendable {
        let play: Int
        let batch: ProbeBatch
        let become: Become?
    }

    /// One play's probes on one host, with what they printed.
    private struct Read: Sendable {
        let batch: ProbeBatch
        let outputs: [ProbeOutput]
    }

    private var reads: [String: Task<[Int: Read], Never>] = [:]
    /// The plays read ahead on each host.
    private var planned: [String: Set<Int>] = [:]
    private var discarded = false

    /// Starts reading on `host` through `transport` what the plays `plays` (by index) will probe, as `plan`
    /// foresees it (in the background: it renders their templates): one round trip for the plays run as each user.
    /// It replaces what an earlier start read on `host`.
    func start(
        plays: Set<Int>, on host: String, through transport: any Transport, plan: @escaping @Sendable () -> [Plan]
    ) {
        guard !discarded, !plays.isEmpty else { return }
        reads[host]?.cancel()
        planned[host] = plays
        reads[host] = Task.detached {
            let plans = plan()
            var reads: [Int: Read] = [:]
            for become in Set(plans.map(\.become)) {
                let group = plans.filter { $0.become == become }
                let combined = ProbeBatch(
                    group.flatMap(\.batch.probes), inspecting: group.flatMap { $0.batch.paddedInspections },
                    waiting: group.flatMap { $0.batch.paddedWaits })
                guard
                    let result = try? await transport.run(
                        ProbeBatch.command, input: Array(combined.script.utf8), become: become, timeout: .seconds(300)),
                    var outputs = try? combined.split(result.stdoutText)[...]
                else { continue }
                for plan in group {
                    reads[plan.play] = Read(batch: plan.batch, outputs: Array(outputs.prefix(plan.batch.probes.count)))
                    outputs = outputs.dropFirst(plan.batch.probes.count)
                }
            }
            return reads
        }
    }

    /// What was read ahead for `batch`, play `play` on `host`, once read; nil when it was discarded, or read for
    /// other probes.
    func outputs(for batch: ProbeBatch, play: Int, on host: String) async -> [ProbeOutput]? {
        guard !discarded, planned[host]?.contains(play) == true, let task = reads[host] else { return nil }
        let read = await task.value[play]
        guard !discarded, let read, read.batch.probes == batch.probes,
            read.batch.paddedInspections == batch.paddedInspections
        else { return nil }
        return read.outputs
    }

    /// Drops everything read ahead and ends the reads still running: something is about to change.
    func discard() {
        guard !discarded else { return }
        discarded = true
        reads.values.forEach { $0.cancel() }
        reads = [:]
        planned = [:]
    }
}
