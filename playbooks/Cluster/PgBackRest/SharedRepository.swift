import Keel

/// Where each member leaves its mark in a shared pgBackRest repository.
private func marks(_ path: String) -> String { "\(path)/.keel-members" }

/// This member's mark in the shared repository, written as `postgres` — which also shows that `postgres` may write
/// there, as pgBackRest will.
struct SharedRepositoryMark: Resource {
    let path: String
    let host: String

    var description: String { "mark of \(host) in the shared repository \(path)" }
    private var mark: String { "\(marks(path))/\(shellQuote(host))" }
    var probe: String { "[ -s \(mark) ] && echo present || echo absent" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        guard output.text == "absent" else { return [] }
        let write = "mkdir -p \(marks(path)) && echo \(shellQuote(host)) > \(mark)"
        let refusal =
            "postgres (uid $(id -u postgres)) cannot write to \(path) on \(host): give it the directory, with the same "
            + "uid on every database host"
        return [
            Change(
                "leave \(host)'s mark in \(path)",
                .shell("runuser -u postgres -- sh -c \(write) || { echo \"\(raw: refusal)\" >&2; exit 1; }"))
        ]
    }
}

/// Fails unless every member's mark is found here: a repository directory local to each host would hold only its
/// own backups and lose the WAL other members archived, so it is refused before Patroni starts.
struct SharedRepositoryCheck: Resource {
    let path: String
    let host: String
    let members: [String]

    var description: String { "the repository \(path) is shared by every database host" }
    var probe: String { "ls -1 \(marks(path)) 2>/dev/null || true" }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        let found = Set(output.text.split(separator: "\n").map(String.init))
        let missing = members.filter { !found.contains($0) }
        guard missing.isEmpty else {
            throw ResourceError(
                "\(path) on \(host) is not the directory the other database hosts see: the marks of \(missing.joined(separator: ", ")) "
                    + "are missing here. Mount one shared filesystem (NFS) at \(path) on every database host, or list a "
                    + "repository host under [pgbackrest]")
        }
        return []
    }

}
