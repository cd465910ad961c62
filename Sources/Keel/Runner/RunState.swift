/// What a run shares across hosts and plays: one connection and its facts per host, which hosts failed, and
/// the tallies for the recap.
actor RunState {
    struct Session: Sendable {
        let target: HostTarget
        let transport: any Transport
        let facts: Facts
    }

    private let targets: [String: HostTarget]
    private let connector: Runner.Connector
    let reporter: any Reporter
    private let checkMode: Bool
    private let knownFacts: [String: Facts]
    private var sessions: [String: Session] = [:]
    private var failed: Set<String> = []
    /// Hosts with a planned change (under --check) that later steps' probes cannot see yet.
    private(set) var planningAhead: Set<String> = []
    private var recap = Recap()
    /// The later plays' probes, read ahead while nothing has changed.
    let prefetch = ProbePrefetch()

    init(
        targets: [String: HostTarget], connector: @escaping Runner.Connector, reporter: any Reporter, checkMode: Bool,
        facts: [String: Facts] = [:]
    ) {
        self.targets = targets
        self.connector = connector
        self.reporter = reporter
        self.checkMode = checkMode
        knownFacts = facts
    }

    /// Lists `hosts` in the recap, in this order, ahead of their first event.
    func register(_ hosts: [String]) { hosts.forEach(note) }

    /// The hosts of `hosts` that have not failed or been unreachable earlier in the run.
    func healthy(_ hosts: [String]) -> [String] { hosts.filter { !failed.contains($0) } }

    /// The host's connection, opened (and its facts gathered, unless already known) on first use; nil when it is
    /// unreachable. `gathering` hears the connection as soon as it is open, before its facts are gathered (it must
    /// return at once: the facts wait for it).
    func session(
        for host: String, gathering: @Sendable (any Transport) async -> Void = { _ in }
    ) async -> Session? {
        if let session = sessions[host] { return session }
        guard let target = targets[host], !failed.contains(host) else { return nil }
        do {
            let transport = try await connector(target)
            let facts: Facts
            if let known = knownFacts[host] {
                facts = known
            } else {
                await gathering(transport)
                facts = try await Facts.gather(through: transport)
            }
            let session = Session(target: target, transport: transport, facts: facts)
            sessions[host] = session
            return session
        } catch {
            markFailed(host, unreachable: true)
            reporter.report(.unreachable(host: host, error: "\(error)"))
            return nil
        }
    }

    /// The facts of every host connected so far, by name.
    func facts() -> [String: Facts] { sessions.mapValues(\.facts) }

    func record(_ report: StepReport) {
        note(report.host)
        switch report.status {
        case .ok: recap.hosts[report.host]?.ok += 1
        case .changed: recap.hosts[report.host]?.changed += 1
        case .failed: recap.hosts[report.host]?.failed += 1
        case .skipped: recap.hosts[report.host]?.skipped += 1
        }
        recap.slowest.append(Recap.Timing(host: report.host, step: report.step, seconds: report.seconds))
        recap.slowest.sort { $0.seconds > $1.seconds }
        if recap.slowest.count > 5 { recap.slowest.removeLast() }
        reporter.report(.step(report))
    }

    /// Under --check, later steps on `host` read it as it is before a planned change (a package, a unit file).
    func planAhead(_ host: String) { planningAhead.insert(host) }

    func markFailed(_ host: String, unreachable: Bool = false) {
        failed.insert(host)
        if unreachable {
            note(host)
            recap.hosts[host]?.unreachable += 1
        }
    }

    /// Records that the run stopped on request, with `steps` not run on `host` (when known).
    func interrupted(_ host: String? = nil, steps: Int = 0) {
        recap.interrupted = true
        if let host, steps > 0 { recap.notRun[host, default: 0] += steps }
    }

    func finish(seconds: Double) async -> Recap {
        await prefetch.discard()
        for session in sessions.values { await session.transport.close() }
        recap.seconds = seconds
        recap.checkMode = checkMode
        reporter.report(.finished(recap))
        return recap
    }

    private func note(_ host: String) {
        if recap.hosts[host] == nil {
            recap.hosts[host] = Recap.Counts()
            recap.order.append(host)
        }
    }
}
