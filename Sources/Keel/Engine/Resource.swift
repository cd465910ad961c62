/// A piece of desired state on a host: a file, a package, a service.
///
/// The engine asks a resource three things, in order, and never lets the first two change anything:
/// 1. ``probe`` — a read-only shell snippet whose output describes the current state. The engine runs the probes
///    of consecutive resources together, in one remote invocation, several at once: a probe never depends on
///    another;
/// 2. ``changes(from:on:)`` — pure: the differences between that output and what is wanted. Empty means
///    converged; `--check` stops here and prints them;
/// 3. ``apply(_:on:)`` — makes the changes through a ``HostExecutor``, the only mutating handle: by default it
///    takes each change's actions in order. The engine then probes again and fails the resource if it did not
///    converge.
///
/// ```swift
/// struct Marker: Resource {
///     var description: String { "marker /etc/marker" }
///     var probe: String { "test -e /etc/marker && echo present" }
///     func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
///         output.text == "present" ? [] : [Change("create", .shell("touch /etc/marker"))]
///     }
/// }
/// ```
public protocol Resource: Sendable {
    /// What the resource manages, as reports name it: `file /etc/haproxy/haproxy.cfg`.
    var description: String { get }
    /// A read-only `/bin/sh` snippet printing the current state. It must not change the host.
    var probe: String { get }
    /// The changes needed, from the probe's output; empty when converged.
    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change]
    /// Makes `changes` real on the host; the default takes their actions in order.
    func apply(_ changes: [Change], on host: HostExecutor) async throws
    /// Whether a change is only a wait for something to become ready: reported `ok` (with the time it took), as it
    /// changes nothing on the host, and never notifies handlers.
    var isWait: Bool { get }
    /// Whether a change means the same thing happened again on purpose (commands without guards): the engine
    /// then does not require a second probe to come back converged.
    var alwaysChanges: Bool { get }
    /// Whether applying may change what other resources' probes see (installing a package adds files, units and
    /// users). The engine then probes the later steps again; otherwise it only verifies this one.
    var affectsOtherResources: Bool { get }
    /// Whether apply only takes the changes' actions (the default) and affects no other step: the engine may then
    /// take the actions of consecutive such steps together, in one round trip (see ``ActionBatch``).
    var isBatchable: Bool { get }
    /// A path whose type, mode, owner and group (and checksum) the probe's output should carry: the engine reads
    /// those of a play's steps together (``PathInspection``) and adds their lines after what ``probe`` printed.
    var inspects: PathInspection? { get }
    /// Whether the probe may wait on something (a service, a port, the network): the engine runs a batch's
    /// probes side by side when one may. Probes that only read files run one after another, each in the script's
    /// own shell (no subshell to start): such a probe must not `exit` nor change the shell's directory, options or
    /// traps.
    var probeWaits: Bool { get }
}

extension Resource {
    public func apply(_ changes: [Change], on host: HostExecutor) async throws { try await host.perform(changes) }
    public var isWait: Bool { false }
    public var alwaysChanges: Bool { false }
    public var affectsOtherResources: Bool { false }
    public var isBatchable: Bool { false }
    public var inspects: PathInspection? { nil }
    public var probeWaits: Bool { true }
}
