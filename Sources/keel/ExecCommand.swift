import ArgumentParser
import Keel

struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec", abstract: "Run an ad-hoc shell command on every host and show each host's output.")

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    @Flag(name: [.short, .long], help: "Run the command as root (or ansible_become_user) through sudo -n.")
    var become = false

    @Option(name: .long, help: "Seconds a command may run before it is cut short.")
    var timeout: Int = 600

    @Argument(parsing: .captureForPassthrough, help: "The command, after --.")
    var command: [String]

    func validate() throws {
        if command.isEmpty {
            throw ValidationError("give the command to run after --, e.g. keel exec -i hosts.ini -- uptime")
        }
    }

    func run() async throws {
        let (inventory, hosts) = try inventoryOptions.load()
        var targets = try targets(of: inventory, hosts)
        if become {
            targets = targets.map {
                var target = $0; target.become = target.privileged; return target
            }
        }
        let line = command.first == "--" ? command.dropFirst().joined(separator: " ") : command.joined(separator: " ")
        let fleet = Fleet(options: try connection.options(for: targets), forks: connection.forks)
        let timeout = Duration.seconds(timeout)
        let outcomes = await fleet.run(
            targets,
            report: { target, outcome in
                Terminal.write(Self.describe(target, outcome))
            }
        ) { target, connection in
            try await connection.run(line, become: target.become, timeout: timeout)
        }
        let failed = outcomes.filter { if case .done(let result, _) = $0 { !result.succeeded } else { true } }.count
        Terminal.write("\(outcomes.count - failed) of \(outcomes.count) hosts succeeded\n")
        if failed > 0 { throw ExitCode.failure }
    }

    private static func describe(_ target: HostTarget, _ outcome: Fleet.Outcome<ExecResult>) -> String {
        switch outcome {
        case .done(let result, _):
            var status = result.signal.map { "killed by SIG\($0)" } ?? "exit \(result.exitStatus)"
            status = result.succeeded ? "ok | \(status)" : "FAILED | \(status)"
            var text = "\(target.name) | \(status)\n" + result.stdoutText
            if !result.stdout.isEmpty, result.stdout.last != UInt8(ascii: "\n") { text += "\n" }
            if !result.stderr.isEmpty {
                text += result.stderrText.split(separator: "\n", omittingEmptySubsequences: false)
                    .dropLast(result.stderr.last == UInt8(ascii: "\n") ? 1 : 0)
                    .map { "stderr: \($0)\n" }.joined()
            }
            return text
        case .unreachable(let error):
            return "\(target.name) | UNREACHABLE | \(error)\n"
        case .failed(let error):
            return "\(target.name) | FAILED | \(error)\n"
        }
    }
}
