import Keel
import KeelSSH

/// This member's Patroni started (or restarted) when an earlier step left `mark`, and back in service — the leader,
/// or a streaming replica — before the mark goes. The plays that hold it go one member at a time.
struct MarkedPatroniStart: Resource {
    let model: ClusterModel
    let host: String
    let mark: String
    let description: String
    let command: String

    var affectsOtherResources: Bool { true }
    var probe: String { "[ -e \(mark) ] && echo marked || echo none" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "marked" else { return [] }
        return [Change("\(description) on \(host) and wait until the member is in service", commands: [
            command, PatroniAPI(model, member: host).waitInService, "rm -f \(mark)",
        ])]
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws { try await host.run(changes) }
}

extension MarkedPatroniStart {
    /// Left by ``OldPatroniStop`` on a member whose older Patroni it stopped.
    static let replacingMark = "/etc/patroni/.keel-replacing"
    /// Left by ``restartHandler`` on a member whose running Patroni must read a changed unit or password file. In
    /// /run, so a reboot (which restarts Patroni anyway) clears it.
    static let restartMark = "/run/keel/patroni-restart-due"

    /// Marks the restart due when Patroni runs; a stopped one reads the files as it starts.
    static let restartHandler = Handler.run(
        name: "mark patroni for a restart", command: "if systemctl is-active -q patroni; then mkdir -p /run/keel && touch \(restartMark); fi")

    /// Keel's Patroni, started on the data the older one managed once Keel's files are in place.
    static func replacing(_ model: ClusterModel, host: String) -> MarkedPatroniStart {
        MarkedPatroniStart(
            model: model, host: host, mark: replacingMark, description: "start Patroni \(model.patroniVersion) in place of Debian's",
            command: "systemctl daemon-reload && systemctl enable -q patroni && systemctl start patroni")
    }

    /// Patroni restarted to read its changed unit or password file.
    static func restartDue(_ model: ClusterModel, host: String) -> MarkedPatroniStart {
        MarkedPatroniStart(
            model: model, host: host, mark: restartMark, description: "restart Patroni",
            command: Handler.restartIfRunning("patroni").command)
    }
}
