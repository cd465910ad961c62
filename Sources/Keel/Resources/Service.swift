/// A systemd service: running or stopped, enabled at boot or not. Reloads systemd first when its unit changed.
public struct Service: Resource {
    public enum State: Sendable { case started, stopped }

    public var name: String
    public var state: State?
    public var enabled: Bool?

    public init(_ name: String, state: State? = .started, enabled: Bool? = true) {
        self.name = name
        self.state = state
        self.enabled = enabled
    }

    public var description: String { "service \(name)" }

    private var unitFile: String { name.contains(".") ? name : name + ".service" }

    public var probe: String {
        let unit = shellQuote(name)
        return """
            echo "active=$(systemctl is-active \(unit) 2>/dev/null)"; echo "enabled=$(systemctl is-enabled \(unit) 2>/dev/null)"; \
            echo "reload=$(systemctl show -p NeedDaemonReload --value \(unit) 2>/dev/null)"; \
            echo "load=$(systemctl show -p LoadState --value \(unit) 2>/dev/null)"; \
            for d in /etc/systemd/system /lib/systemd/system; do [ -e "$d"/\(shellQuote(unitFile)) ] && echo unitfile=1; done
            """
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        let unit = shellQuote(name)
        let unseen = fields["load"] == "not-found"
        if unseen && fields["unitfile"] == nil {
            throw ResourceError(
                "systemd has no unit \(name) on \(host.name); install its package or write its unit file first")
        }
        var changes: [Change] = []
        if fields["reload"] == "yes" || unseen {
            changes.append(Change("reload systemd units", .shell("systemctl daemon-reload")))
        }
        if let enabled {
            let isEnabled = ["enabled", "enabled-runtime", "alias", "static", "indirect"].contains(
                fields["enabled"] ?? "")
            if enabled != isEnabled {
                changes.append(
                    Change(
                        enabled ? "enable" : "disable", .shell("systemctl \(enabled ? "enable" : "disable") \(unit)")))
            }
        }
        if let state {
            let active =
                fields["active"] == "active" || fields["active"] == "activating" || fields["active"] == "reloading"
            if state == .started, !active { changes.append(Change("start", .shell("systemctl start \(unit)"))) }
            // A unit still stopping is stopped once `systemctl stop` has waited for it.
            if state == .stopped, active || fields["active"] == "deactivating" {
                changes.append(Change("stop", .shell("systemctl stop \(unit)")))
            }
        }
        return changes
    }
}
