import Keel

/// A member taken out of service before its PostgreSQL stops, and put back once it streams again: Patroni tags it
/// `noloadbalance` (its `/replica` check fails, so the balancers send readers elsewhere) and `nosync` (Patroni
/// names another synchronous standby, so commits do not wait on a member about to stop).
enum MemberDrain {
    /// `model` with `member` drained.
    static func drained(_ model: ClusterModel, _ member: String) -> ClusterModel {
        var drained = model
        drained.hostFlags[member, default: HostFlags()].patroniTags.merge(
            ["noloadbalance": .bool(true), "nosync": .bool(true)]
        ) { $1 }
        return drained
    }

    /// The member's patroni.yml tagged, and applied by Patroni before the run goes on.
    @StepBuilder
    static func out(_ model: ClusterModel, host: HostContext) throws -> [Step] {
        try PatroniNodeRole(host: host, model: drained(model, host.name), wheel: []).configuration
        FlushHandlers()
        WaitFor(
            .command(applied(model, member: host.name), what: "readers and the synchronous role moved away"),
            timeout: .seconds(3 * model.patroni.loopWait + 30))
    }

    /// The member's patroni.yml as the model has it again (reloaded when it changes).
    @StepBuilder
    static func back(_ model: ClusterModel, host: HostContext) throws -> [Step] {
        try PatroniNodeRole(host: host, model: model, wheel: []).configuration
        FlushHandlers()
    }

    /// Succeeds once the member's `/replica` check fails and, when another replica can be the synchronous standby,
    /// it is not; then waits out the balancers' checks (every 3 s, down after 3 failures, 1 s apart once failing).
    private static func applied(_ model: ClusterModel, member: String) -> ShellCommand {
        let api = PatroniAPI(model, member: member)
        var check: ShellCommand = "! \(api.get("/replica")) >/dev/null"
        if model.patroni.synchronousMode && model.synchronousCandidates > 1 {
            check = check + " && ! \(api.get("/cluster")) | python3 -c \(isSyncStandby) \(member)"
        }
        return model.haproxy != nil ? check + " && sleep 6" : check
    }

    /// Succeeds when the member named by the first argument is the synchronous standby in `/cluster` on stdin.
    private static let isSyncStandby = """
        import json, sys
        sys.exit(0 if any(m["name"] == sys.argv[1] and m["role"] == "sync_standby"
                          for m in json.load(sys.stdin)["members"]) else 1)
        """
}
