/// What an operator types before a flow that removes or replaces something goes on: checked against the
/// inventory before any host is contacted where the inventory can tell, asked for once the plan is shown.
public enum FlowConfirmation: Sendable, Equatable {
    /// The cluster's name (`--confirm NAME` in scripts).
    case clusterName
    /// The pgBackRest stanza's name, for deleting its backups (`--confirm-backups STANZA`).
    case stanzaName
    /// Each of these hosts (`--yes HOST` in scripts).
    case hostNames([String])
}
