/// A systemd service: running or stopped, enabled at boot or not. Reloads systemd first when its unit changed. A
/// service that must neither run nor be enabled is that already when its unit does not exist (its package purged).
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

    /// The service and the state it is brought to, such as "service etcd stopped and disabled".
    public var description: String {
        let wanted = [
            state.map { $0 == .started ? "started" : "stopped" }, enabled.map { $0 ? "enabled" : "disabled" },
        ]
        .compactMap(\.self)
        return wanted.isEmpty ? "service \(name)" : "service \(name) " + wanted.joined(separator: " and ")
    }

    private var unitFile: String { name.contains(".") ? name : name + ".service" }

    public var probe: String {
        let unit = shellQuote(name)
        return """
            systemctl show -p Id -p ActiveState -p NeedDaemonReload -p LoadState -p UnitFileState -- \(unit) 2>/dev/null \
            | while IFS== read -r k v; do case $k in Id) echo "id=$v";; ActiveState) echo "active=$v";; \
            NeedDaemonReload) echo "reload=$v";; LoadState) echo "load=$v";; UnitFileState) echo "enabled=$v";; esac; \
            done; for d in /etc/systemd/system /lib/systemd/system; do [ -e "$d"/\(shellQuote(unitFile)) ] && echo unitfile=1; done
            """
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        let unseen = fields["load"] == "not-found"
        // Only a service that is to run or start at boot needs its unit, and systemd to have read it as it is.
        let needsUnit = state == .started || enabled == true
        if unseen && fields["unitfile"] == nil {
            guard needsUnit else { return [] }
            throw ResourceError(
                "systemd has no unit \(name) on \(host.name); install its package or write its unit file first")
        }
        var changes: [Change] = []
        if needsUnit, fields["reload"] == "yes" || unseen {
            changes.append(Change("reload systemd units", .shell("systemctl daemon-reload")))
        }
        if let enabled {
            // A static or indirect unit starts only through another: enabled enough, and nothing to disable.
            // Another name of a unit shows that unit's state: an alias, which cannot be enabled or disabled itself.
            let id = fields["id"] ?? ""
            let isAlias = !id.isEmpty && id != name && id != name + ".service"
            let state = isAlias ? "alias" : fields["enabled"] ?? ""
            let isEnabled = ["enabled", "enabled-runtime"].contains(state)
            let cannotChange = ["alias", "static", "indirect"].contains(state)
            if enabled != isEnabled && !cannotChange {
                changes.append(
                    Change(
                        enabled ? "enable" : "disable",
                        .shell("systemctl \(raw: enabled ? "enable" : "disable") \(name)")))
            }
        }
        if let state {
            let active =
                fields["active"] == "active" || fields["active"] == "activating" || fields["active"] == "reloading"
            if state == .started, !active { changes.append(Change("start", .shell("systemctl start \(name)"))) }
            // A unit still stopping is stopped once `systemctl stop` has waited for it.
            if state == .stopped, active || fields["active"] == "deactivating" {
                changes.append(Change("stop", .shell("systemctl stop \(name)")))
            }
        }
        return changes
    }
}
