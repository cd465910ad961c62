import Foundation
import Keel

/// `candidate` (or, when nil, the replica Patroni picks: the synchronous standby under synchronous mode) leads the
/// cluster instead of `leader`, in two stages on the leader's host: ``Stage/prepared`` (the checks the hand-over
/// needs, and a CHECKPOINT so that the demoted leader shuts down fast), then ``Stage/promoted`` (the hand-over
/// through the leader's REST API, a switchover, not a failover, until the candidate writes). Between the two,
/// the balancers' PgBouncers pause (``PoolersPaused``). Converged when the candidate (or any member but `leader`)
/// leads; an error when a third member leads (the cluster changed since the plan).
struct SwitchedOver: Resource {
    enum Stage: Sendable {
        /// Ready to hand over: a synchronous standby named (under synchronous mode), no long transaction, a
        /// CHECKPOINT done.
        case prepared
        /// Handed over: the candidate (or another member) is the primary.
        case promoted
    }

    let model: ClusterModel
    let leader: String
    let candidate: String?
    let stage: Stage

    var description: String {
        switch stage {
        case .prepared: "ready for the switchover from \(leader)"
        case .promoted: "switchover from \(leader) to \(candidate ?? "a replica")"
        }
    }
    var affectsOtherResources: Bool { true }
    /// The checks change nothing the probe sees: done once they pass.
    var alwaysChanges: Bool { stage == .prepared }

    var probe: String { PatroniAPI.fromAnyMember(model, "/cluster").text }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard let members = try? PatroniMember.decode(Data(output.text.utf8)).members else {
            throw PatroniAPI.unanswered(host.name)
        }
        let leading = members.first { $0.role == "leader" }?.name
        if let leading, leading == candidate || (candidate == nil && leading != leader) { return [] }
        guard leading == leader else {
            throw ResourceError(
                "\(leading ?? "no member") leads the cluster now, not \(leader) as planned: run keel switchover again")
        }
        let what =
            switch stage {
            case .prepared: "CHECKPOINT, and the checks before the hand-over"
            case .promoted: "hand the leader's role to \(candidate ?? "a replica")"
            }
        return [Change(what, .shell(command))]
    }

    /// Applies the change, and tells how long after the request the candidate took writes (clients through
    /// HAProxy wait up to its check interval more).
    func apply(_ changes: [Change], on host: HostExecutor) async throws {
        let fields = ProbeOutput(text: try await host.run(command.text).stdoutText).fields
        if let candidate, let requested = fields["requested"].flatMap(Double.init),
            let promoted = fields["promoted"].flatMap(Double.init)
        {
            host.tell("\(candidate) took writes \(String(format: "%.1f", promoted - requested)) s after the request")
        }
    }

    private var command: ShellCommand {
        switch stage {
        case .prepared: Self.prepare(model, on: leader)
        case .promoted:
            Self.handOver(model, from: leader, to: candidate, timed: true, untilStreaming: false)
                .joined(separator: " && ")
        }
    }

    /// The checks before a hand-over, and a CHECKPOINT, joined by `&&`: under synchronous mode, a synchronous
    /// standby named (a replica just restarted may not be one yet); no transaction older than `max_transaction_sec`.
    static func prepare(_ model: ClusterModel, on leader: String) -> ShellCommand {
        var steps: [ShellCommand] = []
        if model.patroni.synchronousMode && model.databaseHosts.count > 1 {
            steps.append(
                Poll(
                    until: "{ \(PatroniAPI.fromAnyMember(model, "/cluster")); } | grep -q '\"role\": \"sync_standby\"'",
                    seconds: 120, onTimeout: .fail("no synchronous standby after 120 s")
                ).command)
        }
        steps.append(noLongTransaction(model, on: leader))
        steps.append(model.postgres.run("CHECKPOINT") + " >/dev/null")
        return steps.joined(separator: " && ")
    }

    /// Shell commands, joined by `&&`, that hand the leader's role from `leader` to `candidate` (or the replica
    /// Patroni picks) after the checks of ``prepare(_:on:)``, and wait until the candidate (or, for no candidate,
    /// another member) accepts writes and, when `untilStreaming`, until the former leader streams from the new
    /// one. When `timed` and `candidate` is named, they print `requested=` and `promoted=` (seconds since the epoch)
    /// around the candidate's promotion.
    static func handOver(
        _ model: ClusterModel, from leader: String, to candidate: String?, timed: Bool = false,
        untilStreaming: Bool = true
    ) -> [ShellCommand] {
        let now: ShellCommand = "$(date +%s.%N)"
        let api = PatroniAPI(model, member: leader)
        var body: [String: JSONValue] = ["leader": .string(leader)]
        body["candidate"] = candidate.map(JSONValue.string)
        var steps = [prepare(model, on: leader)]
        if timed && candidate != nil { steps.append("echo requested=\(now)") }
        steps.append(api.send("POST", "/switchover", json: JSONValue.object(body).json, timeout: 60))
        let others = candidate.map { [$0] } ?? model.databaseHosts.filter { $0 != leader }
        let promoted = others.map { PatroniAPI(model, member: $0).acceptsWrites }.joined(separator: " || ")
        steps.append(
            Poll(
                until: promoted, seconds: 60,
                onTimeout: .fail("\(candidate ?? "no replica") accepts no writes 60 s after the switchover"),
                interval: timed ? 0.2 : 1
            ).command)
        if timed && candidate != nil { steps.append("echo promoted=\(now)") }
        if untilStreaming {
            steps.append(
                Poll(
                    until: api.caughtUp(model), seconds: 120,
                    onTimeout: .fail("\(leader) does not stream from the new leader 120 s after the switchover")
                ).command)
        }
        return steps
    }

    /// How long the hand-over waits for the leader's long transactions to end before it gives up.
    static let longTransactionWait = 150

    /// Waits (up to ``longTransactionWait`` seconds) until no client transaction older than `max_transaction_sec`
    /// runs on `leader` (this host): a switchover would end it, and its client would see an error.
    static func noLongTransaction(_ model: ClusterModel, on leader: String) -> ShellCommand {
        let seconds = model.limits.maximumTransactionSeconds
        return Poll(
            until: noneOlder(model), seconds: longTransactionWait,
            onTimeout: .fail(
                "a transaction has been running on \(leader) for more than \(seconds) s (max_transaction_sec) for "
                    + "\(longTransactionWait) s: the switchover would end it; see pg_stat_activity, end it or wait, "
                    + "then run again")
        ).command
    }

    /// Succeeds when no client transaction older than `max_transaction_sec` runs on this host's PostgreSQL.
    static func noneOlder(_ model: ClusterModel) -> ShellCommand {
        let oldest =
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
            + "AND xact_start < now() - interval '\(model.limits.maximumTransactionSeconds) seconds'"
        return "[ \"$(\(model.postgres.run(oldest)))\" = 0 ]"
    }
}
