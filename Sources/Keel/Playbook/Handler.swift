import KeelSSH

/// Something to do once at the end of a play (a reload of a service that is not running does nothing), when any step that names it changed: restart a service after
/// its config changed. Each handler runs at most once per host and play, in the order handlers were first named.
public enum Handler: Sendable, Hashable, CustomStringConvertible {
    case restart(String)
    case reload(String)
    /// Any command, with a name for reports.
    case run(name: String, command: String)

    public var description: String {
        switch self {
        case .restart(let service): "restart \(service)"
        case .reload(let service): "reload \(service)"
        case .run(let name, _): name
        }
    }

    var command: String {
        switch self {
        case .restart(let service): "systemctl restart \(shellQuote(service))"
        case .reload(let service): "systemctl try-reload-or-restart \(shellQuote(service))"
        case .run(_, let command): command
        }
    }
}
