import Keel

/// Left on a host while `keel update` has it out of service (drained, its services stopped for the new packages),
/// and removed once it serves again: a rerun after a killed update brings such a host back first, even when its
/// packages are already current.
struct UpdateMark: Resource {
    static let path = "/var/lib/keel/update-unfinished"
    /// Succeeds when the mark is there.
    static let read = "[ -e \(path) ]"

    let present: Bool

    var description: String { present ? "mark the update unfinished" : "mark the update finished" }
    var probe: String { "\(Self.read) && echo mark=present || echo mark=absent" }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard (output.fields["mark"] == "present") != present else { return [] }
        return [
            present
                ? Change("mark", .shell("mkdir -p /var/lib/keel && touch \(Self.path)"))
                : Change("remove the mark", .shell("rm -f \(Self.path)"))
        ]
    }
}
