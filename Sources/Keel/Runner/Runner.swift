import KeelSSH

/// Applies a playbook to an inventory's hosts: plays in order; within a play, hosts in parallel (at most
/// ``RunOptions/forks`` at once, in ``Play/serial`` batches); on each host, steps in order.
///
/// Each host gets one connection for the whole run and one round trip for its facts. Per play, the probes of all
/// its steps go in one round trip; after a step changes something, the remaining steps are probed again (that
/// probe also verifies the step converged). The later plays' probes are read ahead while the first play runs, and
/// taken while nothing has changed, where they show a play with nothing to do (``ProbePrefetch``); with the facts of
/// the last run remembered (``RunOptions/factsMemory``), every play's probes are read while the facts are gathered.
public struct Runner: Sendable {
    public typealias Connector = HostConnector

    public let inventory: Inventory
    public let options: RunOptions
    let reporter: any Reporter
    let connector: Connector
    /// Facts already read from hosts this run (to resolve the inventory's variables): not read again.
    public var knownFacts: [String: Facts] = [:]

    /// A runner that reaches hosts over SSH.
    public init(inventory: Inventory, options: RunOptions, reporter: any Reporter, connection: ConnectionOptions) {
        self.init(inventory: inventory, options: options, reporter: reporter, connector: connection.connector)
    }

    /// A runner that reaches hosts through `connector` (tests pass a fake transport).
    public init(inventory: Inventory, options: RunOptions, reporter: any Reporter, connector: @escaping Connector) {
        self.inventory = inventory
        self.options = options
        self.reporter = reporter
        self.connector = connector
    }

    /// Runs `playbook` and returns the recap (also reported as the last event).
    /// - Throws: ``InventoryError`` when a host pattern or connection variable is wrong, before any host is touched.
    public func run(_ playbook: Playbook) async throws(InventoryError) -> Recap {
        let start = ContinuousClock.now
        let limited = try options.limit.map { pattern throws(InventoryError) in Set(try inventory.select(pattern)) }
        var targets: [String: HostTarget] = [:]
        var playHosts: [[String]] = []
        for play in playbook.plays {
            let hosts = try inventory.select(play.hosts).filter { play.isGuard || limited?.contains($0) ?? true }
            for host in hosts where targets[host] == nil { targets[host] = try inventory.target(for: host) }
            playHosts.append(hosts)
        }
        let state = RunState(
            targets: targets, connector: connector, reporter: reporter, checkMode: options.check, facts: knownFacts)
        let remembered = options.factsMemory.map { memory in targets.compactMapValues { memory.facts(of: $0) } } ?? [:]
        playLoop: for (index, (play, candidates)) in zip(playbook.plays, playHosts).enumerated() {
            if options.stopRequested {
                await state.interrupted()
                break
            }
            let hosts = await state.healthy(candidates)
            await state.register(hosts)
            reporter.report(.playStarted(name: play.name, hosts: hosts))
            // Every host of the play is connected before any runs, so each one plans knowing its peers' facts. On
            // the first, every play's probes are read ahead as the facts this machine remembers plan them, while
            // the facts are gathered; where they are still the facts, that read stands.
            let foreseen =
                index == 0 ? hosts.reduce(into: [String: Facts]()) { $0[$1] = knownFacts[$1] ?? remembered[$1] } : [:]
            let reached = await hosts.concurrentMap(limit: options.forks) { [targets, playHosts] host in
                await state.session(for: host) { transport in
                    guard let facts = foreseen[host], let target = targets[host] else { return }
                    await readAhead(
                        playbook.plays, playHosts, from: 0, on: target, through: transport, facts: facts,
                        peers: foreseen, state: state)
                } != nil
            }
            if play.anyErrorsFatal && reached.contains(false) { break playLoop }
            let peers = await state.facts()
            if index == 0 {
                for host in hosts where foreseen != peers || knownFacts[host] != nil {
                    guard let session = await state.session(for: host) else { continue }
                    await readAhead(
                        playbook.plays, playHosts, from: 1, on: session.target, through: session.transport,
                        facts: session.facts, peers: peers, state: state)
                }
            }
            let batchSize = max(1, play.serial ?? hosts.count)
            for batchStart in stride(from: 0, to: hosts.count, by: batchSize) {
                if options.stopRequested {
                    await state.interrupted()
                    break playLoop
                }
                let batch = Array(hosts[batchStart..<min(hosts.count, batchStart + batchSize)])
                let failures = await runBatch(
                    batch, play: play, index: index, firstHost: hosts.first, peers: peers, state: state)
                if play.anyErrorsFatal && failures > 0 { break playLoop }
            }
        }
        if let memory = options.factsMemory {
            for (host, facts) in await state.facts() where knownFacts[host] == nil && remembered[host] != facts {
                if let target = targets[host] { memory.remember(facts, of: target) }
            }
        }
        return await state.finish(seconds: (ContinuousClock.now - start).seconds)
    }

    /// Starts reading on `target` the probes of the plays from `first` on that include it, as they plan them with
    /// `facts` and `peers` (see ``ProbePrefetch``).
    private func readAhead(
        _ plays: [Play], _ playHosts: [[String]], from first: Int, on target: HostTarget,
        through transport: any Transport, facts: Facts, peers: [String: Facts], state: RunState
    ) async {
        let host = target.name
        let context = HostContext(name: host, inventory: inventory, facts: facts, peers: peers)
        let ahead = zip(plays, playHosts).enumerated().dropFirst(first).filter { $0.element.1.contains(host) }
        await state.prefetch.start(plays: Set(ahead.map(\.offset)), on: host, through: transport) { [options] in
            ahead.compactMap { index, element in
                let (play, hosts) = element
                guard let steps = try? play.body(context).filter({ options.selects(play.tags.union($0.tags)) })
                else { return nil }
                return ProbePrefetch.Plan(
                    play: index, batch: ProbeBatch(probing: steps, isFirstHost: host == hosts.first),
                    become: play.become ? target.privileged : nil)
            }
        }
    }

    /// Runs `play` on `hosts`, at most `forks` at once; returns how many hosts failed.
    private func runBatch(
        _ hosts: [String], play: Play, index: Int, firstHost: String?, peers: [String: Facts], state: RunState
    ) async -> Int {
        let succeeded = await hosts.concurrentMap(limit: options.forks) { [inventory, options] host in
            guard let session = await state.session(for: host) else { return false }
            let context = HostContext(name: host, inventory: inventory, facts: session.facts, peers: peers)
            let run = HostPlayRun(
                play: play, playIndex: index, context: context, session: session, isFirstHost: host == firstHost,
                options: options, state: state)
            return await run.run()
        }
        return succeeded.filter { !$0 }.count
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
