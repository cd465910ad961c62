import ArgumentParser
import Keel

struct PingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping", abstract: "Connect to every host in parallel and report which answer, and how fast.")

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    func run() async throws {
        let (inventory, hosts) = try inventoryOptions.load()
        let targets = try targets(of: inventory, hosts)
        let fleet = Fleet(options: try connection.options(for: targets), forks: connection.forks)
        let outcomes = await fleet.run(
            targets,
            report: { (target, outcome: Fleet.Outcome<(Duration, Bool)>) in
                switch outcome {
                case .done(let (roundTrip, kept), let connectTime):
                    let connect = "connect \(connectTime.milliseconds) ms" + (kept ? " (session kept)" : "")
                    Terminal.write("\(target.name) | ok | \(connect), round trip \(roundTrip.milliseconds) ms\n")
                case .unreachable(let error):
                    Terminal.write("\(target.name) | UNREACHABLE | \(error)\n")
                case .failed(let error):
                    Terminal.write("\(target.name) | FAILED | \(error)\n")
                }
            }
        ) { _, connection -> (Duration, Bool) in
            let start = ContinuousClock.now
            let result = try await connection.run("true", timeout: .seconds(30))
            guard result.succeeded else {
                throw CLIError("`true` exited \(result.exitStatus): \(result.stderrText)")
            }
            return (ContinuousClock.now - start, SessionKeeper.wasKept(connection))
        }
        let failed = outcomes.filter { if case .done = $0 { false } else { true } }.count
        Terminal.write("\(outcomes.count - failed) of \(outcomes.count) hosts answered\n")
        if failed > 0 { throw ExitCode.failure }
    }
}

extension Duration {
    /// Whole milliseconds, for reports.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
