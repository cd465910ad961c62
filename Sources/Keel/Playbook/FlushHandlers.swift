/// Runs the handlers notified so far, here rather than at the end of the play (Ansible's
/// `meta: flush_handlers`): for a check right after a restart, such as waiting for the port of a reconfigured
/// service.
public struct FlushHandlers: Resource {
    public init() {}
    public var description: String { "flush handlers" }
    public var probe: String { "true" }
    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] { [] }
    public func apply(_ changes: [Change], on host: HostExecutor) async throws {}
}
