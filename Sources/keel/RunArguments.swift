import ArgumentParser
import Examples
import Foundation
import Keel

/// Options every command that applies a playbook shares.
struct RunArguments: ParsableArguments {
    @Flag(help: "Show what would change, with diffs, and change nothing (exit 2 when changes are pending).")
    var check = false

    @Flag(help: "Show unified diffs of changed files during the run.")
    var diff = false

    @Option(help: "Only steps with these tags (comma-separated).")
    var tags: String?

    @Option(help: "Skip steps with these tags (comma-separated).")
    var skipTags: String?

    @Flag(name: .shortAndLong, help: "-v shows remote commands, -vv their output too.")
    var verbose: Int

    @Option(help: "Also write every event as JSON lines to this file.")
    var events: String?

    @Flag(help: "After the recap, print where the time went: each play's wall time and its longest step.")
    var profile = false

    @Option(help: "Where to list failed hosts, for --limit @FILE.")
    var retryFile = "keel.retry"

    func validate() throws {
        for (flag, list) in [("--tags", tags), ("--skip-tags", skipTags)] where list != nil && Self.split(list).isEmpty
        {
            throw ValidationError("\(flag) names no tag (an unset shell variable?); leave it out instead")
        }
    }

    /// Runs `playbook` (with the `facts` already read from hosts, not read again); `finished` hears the recap before
    /// a failure turns into the exit status.
    func apply(
        _ playbook: Playbook, to inventory: Inventory, limit: String?, forks: Int,
        connector: @escaping HostConnector, facts: [String: Facts] = [:], finished: (Recap) throws -> Void = { _ in }
    ) async throws {
        try checkTags(of: playbook)
        // Checked before any host is touched: failed hosts must have somewhere to go.
        let retryFolder = (retryFile as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: retryFolder.isEmpty ? "." : retryFolder) else {
            throw CLIError("--retry-file \(retryFile): its folder does not exist or cannot be written")
        }
        let stop = StopRequest()
        var options = RunOptions(
            check: check, diff: diff, tags: Self.split(tags), skipTags: Self.split(skipTags),
            limit: limit, forks: forks, stop: stop)
        options.factsMemory = .standard
        var reporters: [any Reporter] = [
            ConsoleReporter(
                verbosity: ConsoleReporter.Verbosity(rawValue: min(verbose, 2)) ?? .normal,
                live: isatty(STDOUT_FILENO) == 1, noticeDelay: options.slowStep)
        ]
        if profile { reporters.append(ProfileReporter()) }
        if let events { reporters.append(try EventLog(path: events)) }
        var runner = Runner(
            inventory: inventory, options: options, reporter: Reporters(reporters), connector: connector)
        runner.knownFacts = facts
        let run = Task { try await runner.run(playbook) }
        let interrupts = Interrupts(stop: stop, run: run)
        defer { interrupts.end() }
        let recap: Recap
        do {
            recap = try await run.value
        } catch {
            throw CLIError("\(error)")
        }
        try finished(recap)
        if !recap.failedHosts.isEmpty {
            do {
                try recap.failedHosts.joined(separator: "\n").appending("\n").write(
                    toFile: retryFile, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write the failed hosts to \(retryFile): \(error.localizedDescription)")
            }
            Terminal.write("failed hosts written to \(retryFile); retry them with --limit @\(retryFile)\n")
            throw ExitCode.failure
        }
        if recap.interrupted { throw ExitCode(130) }
        if check && recap.totalChanged > 0 { throw ExitCode(2) }
    }

    /// Refuses `--tags` or `--skip-tags` naming a tag no play of `playbook` has: a typo would select nothing.
    func checkTags(of playbook: Playbook) throws {
        let known = Set(playbook.plays.flatMap(\.tags)).union(["always"])
        for (flag, list) in [("--tags", tags), ("--skip-tags", skipTags)] {
            let unknown = Self.split(list).subtracting(known)
            guard unknown.isEmpty else {
                throw CLIError(
                    "\(flag) names \(unknown.sorted().joined(separator: ", ")), which no play of \(playbook.name) has "
                        + "(its tags: \(known.sorted().joined(separator: ", "))): nothing was changed")
            }
        }
    }

    private static func split(_ list: String?) -> Set<String> {
        Set((list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}
