import Keel

/// A member cloned afresh by Patroni from the leader: its data directory emptied and Patroni started on it, then
/// the member in service, streaming and caught up.
struct MemberCloned {
    let model: ClusterModel

    /// Empties the data directory and starts Patroni, once `first` succeeded when given.
    func command(after first: ShellCommand? = nil) -> ShellCommand {
        (first.map { "\($0) && " } ?? "")
            + "\(PostgresControl.asPostgres("find \(model.dataDirectory) -mindepth 1 -delete")) && systemctl enable --now patroni"
    }

    /// Waits for `host` to serve, then to stream on the leader's timeline, caught up.
    @StepBuilder func settled(_ host: String) -> [Step] {
        MemberInService(model: model, host: host).steps
        WaitFor(
            .command(PatroniAPI(model, member: host).caughtUp(model), what: "streaming, caught up"),
            timeout: model.limits.dataCopyTimeout)
    }
}
