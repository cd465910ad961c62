import Keel

/// Before a new member's Patroni first starts: a real replication login from it to every running member, with
/// the cluster's replication credentials. Any member may be the one it clones from or, later, the primary it
/// streams from; a member whose pg_hba does not let it in yet (Patroni applies a reload within a cycle) is
/// tried again for 30 seconds, and a wrong password stops the run here, named, before the member starts.
struct ReplicationLogin: Resource {
    let model: ClusterModel
    let host: String

    var description: String { "replication login from \(host) to every member" }
    var isWait: Bool { true }
    var alwaysChanges: Bool { true }

    /// `cloned` once the member has its data: it no longer needs to prove anything before starting.
    var probe: String {
        ("[ -f \(model.dataDirectory + "/PG_VERSION") ] && echo cloned || echo new" as ShellCommand).text
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "new" else { return [] }
        let members = model.databaseHosts.filter { $0 != host }
        guard !members.isEmpty else { return [] }
        let logins = members.map { member -> ShellCommand in
            let address = model.address(of: member)
            let connection = model.memberConnection(
                to: address, user: model.logins.replication.name, database: "replication")
            let target = connection + " replication=true connect_timeout=5"
            let named = "\(member) (\(address)): "
            return "out=$(psql \(target) -XAtqc IDENTIFY_SYSTEM 2>&1 >/dev/null) || { ok=; why=\(named)\"$out\"; }"
        }
        let tried = Poll(
            until: "ok=1; \(logins.joined(separator: "; ")); [ -n \"$ok\" ]", seconds: 30, onTimeout: .proceed)
        let hint =
            "check patroni_replication_password (it must be the running cluster's), and that every member's pg_hba "
            + "lets \(model.address(of: host)) in"
        let command: ShellCommand = """
            IFS= read -r PGPASSWORD || true; export PGPASSWORD
            \(tried.command)
            [ -n "$ok" ] && exit 0
            printf '%s cannot log in for replication as %s to %s\\n' \(host) \(model.logins.replication.name) "$why" >&2
            printf '%s\\n' \(hint) >&2
            exit 1
            """
        return [
            Change(
                "log in for replication to \(members.joined(separator: ", "))",
                .shell(command, input: model.logins.replication.password))
        ]
    }
}
