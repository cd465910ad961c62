/// Something to do once at the end of a play, when any step that names it changed: restart a service after its
/// config changed (a reload of a service that is not running does nothing). Each handler runs at most once per
/// host and play, in the order handlers were first named; a restart stands in for a reload of the same service.
public enum Handler: Sendable, Hashable, CustomStringConvertible {
    case restart(String)
    /// Restarts the service only when it is running (`systemctl try-restart`): for a change that must not start it.
    case restartIfRunning(String)
    case reload(String)
    /// Any command, with a name for reports.
    case run(name: String, command: ShellCommand)

    public var description: String {
        switch self {
        case .restart(let service): "restart \(service)"
        case .restartIfRunning(let service): "restart \(service) if running"
        case .reload(let service): "reload \(service)"
        case .run(let name, _): name
        }
    }

    /// `handlers` to run, in order, with a service notified for a restart restarted once: its reload, and its
    /// restart-if-running, are part of the restart.
    static func merged(_ handlers: [Handler]) -> [Handler] {
        let restarted = Set(handlers.compactMap { if case .restart(let service) = $0 { service } else { nil } })
        var merged: [Handler] = []
        for handler in handlers {
            switch handler {
            case .reload(let service) where restarted.contains(service),
                .restartIfRunning(let service) where restarted.contains(service):
                if !merged.contains(.restart(service)) { merged.append(.restart(service)) }
            default:
                if !merged.contains(handler) { merged.append(handler) }
            }
        }
        return merged
    }

    /// A restart after a unit file changed must use the new unit: reload systemd first when it asks for it.
    private static func reloadingUnits(_ service: String) -> ShellCommand {
        "if [ \"$(systemctl show -p NeedDaemonReload --value \(service))\" = yes ]; then systemctl daemon-reload; fi; "
    }

    /// The shell command the handler runs.
    public var command: ShellCommand {
        switch self {
        case .restart(let service): Self.reloadingUnits(service) + "systemctl restart \(service)"
        case .restartIfRunning(let service): Self.reloadingUnits(service) + "systemctl try-restart \(service)"
        case .reload(let service): "systemctl try-reload-or-restart \(service)"
        case .run(_, let command): command
        }
    }
}
