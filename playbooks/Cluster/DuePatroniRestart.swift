import Keel
import KeelSSH

/// A member whose running Patroni must restart to read a changed unit or environment file (passwords): marked by
/// the handler of those files, restarted here in a play that goes one member at a time, each back in service
/// before the next — never the whole cluster at once. The mark lives in /run, so a reboot clears it.
struct DuePatroniRestart: Resource {
    static let mark = "/run/keel/patroni-restart-due"
    /// Marks the restart due when Patroni runs; a stopped one reads the files as it starts.
    static let handler = Handler.run(
        name: "mark patroni for a restart", command: "if systemctl is-active -q patroni; then mkdir -p /run/keel && touch \(mark); fi")

    let model: ClusterModel
    let host: String

    var description: String { "patroni restarted for its changed files" }
    var affectsOtherResources: Bool { true }
    var probe: String { "[ -e \(Self.mark) ] && echo due || echo none" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "due" else { return [] }
        let api = PatroniAPI(model, member: host)
        return [Change("restart Patroni on \(host) and wait until the member is in service", commands: [
            "if [ \"$(systemctl show -p NeedDaemonReload --value patroni)\" = yes ]; then systemctl daemon-reload; fi; systemctl try-restart patroni",
            "for i in $(seq 300); do \(api.inService) && exit 0; sleep 1; done; echo 'the member is not in service after 300 s' >&2; exit 1",
            "rm -f \(Self.mark)",
        ])]
    }

    func apply(_ changes: [Change], on host: HostExecutor) async throws { try await host.run(changes) }
}
