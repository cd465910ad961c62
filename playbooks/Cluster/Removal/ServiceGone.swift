import Keel

/// A systemd service that neither runs nor starts at boot; a unit that no longer exists (its package purged) is
/// gone too.
struct ServiceGone: Resource {
    let name: String

    init(_ name: String) { self.name = name }

    var description: String { "service \(name) stopped and disabled" }

    var probe: String {
        let unit = shellQuote(name)
        return "echo \"active=$(systemctl is-active \(unit) 2>/dev/null)\"; "
            + "echo \"enabled=$(systemctl is-enabled \(unit) 2>/dev/null)\""
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        // A unit still stopping is not gone yet: `disable --now` waits until it is.
        let active = ["active", "activating", "reloading", "deactivating"].contains(fields["active"] ?? "")
        let enabled = ["enabled", "enabled-runtime"].contains(fields["enabled"] ?? "")
        guard active || enabled else { return [] }
        return [Change("stop and disable", .shell("systemctl disable --now \(shellQuote(name))"))]
    }
}
