import KeelSSH

/// Applies a playbook to an inventory's hosts: plays in order; within a play, hosts in parallel (at most
/// ``RunOptions/forks`` at once, in ``Play/serial`` batches); on each host, steps in order.
///
/// Each host gets one connection for the whole run and one round trip for its facts. Per play, the probes of all
/// its steps go in one round trip; after a step changes something, the remaining steps are probed again (that
/// probe also verifies the step converged). The later plays' probes are read ahead while the first play runs, and
/// taken while nothing has changed, where they show a play with nothing to do (``ProbePrefetch``).
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
        playLoop: for (index, (play, candidates)) in zip(playbook.plays, playHosts).enumerated() {
            if options.stopRequested {
                await state.interrupted()
                break
            }
            let hosts = await state.healthy(candidates)
            await state.register(hosts)
            reporter.report(.playStarted(name: play.name, hosts: hosts))
            // Every host of the play is connected before any runs, so each one plans knowing its peers' facts.
            let reached = await hosts.concurrentMap(limit: options.forks) { await state.session(for: $0) != nil }
            if play.anyErrorsFatal && reached.contains(false) { break playLoop }
            let peers = await state.facts()
            if index == 0 {
                await readAhead(playbook.plays, playHosts, connected: hosts, peers: peers, state: state)
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
        return await state.finish(seconds: (ContinuousClock.now - start).seconds)
    }

    /// Starts reading the probes of every later play on each `connected` host, as it will plan them (see
    /// ``ProbePrefetch``).
    private func readAhead(
        _ plays: [Play], _ playHosts: [[String]], connected: [String], peers: [String: Facts], state: RunState
    ) async {
        for host in connected {
            guard let session = await state.session(for: host) else { continue }
            let context = HostContext(name: host, inventory: inventory, facts: session.facts, peers: peers)
            let later = zip(plays, playHosts).enumerated().dropFirst().filter { $0.element.1.contains(host) }
            await state.prefetch.start(
                plays: Set(later.map(\.offset)), on: host, through: session.transport
            ) { [options] in
                later.compactMap { index, element in
                    let (play, hosts) = element
                    guard let steps = try? play.body(context).filter({ options.selects(play.tags.union($0.tags)) })
                    else { return nil }
                    return ProbePrefetch.Plan(
                        play: index, batch: ProbeBatch(probing: steps, isFirstHost: host == hosts.first),
                        become: play.become ? session.target.privileged : nil)
                }
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
