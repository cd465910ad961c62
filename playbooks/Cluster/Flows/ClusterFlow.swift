import Keel

/// A job Keel does on a whole cluster (deploy, add a node, restore, …): a playbook made from the cluster's
/// model, which the command line runs after loading the inventory, the model and its secrets.
public protocol ClusterFlow {
    /// The command's name: `deploy`.
    static var name: String { get }
    /// One line on what it does, for `--help`.
    static var summary: String { get }
    /// Whether it may generate secrets the inventory leaves empty (a new cluster's passwords and keys, a new
    /// host's certificate) and keep them; a flow that may not sees only the secrets already kept.
    static var writesSecrets: Bool { get }
    /// Whether it installs Patroni on hosts, and so needs the Patroni wheel on this machine.
    static var needsPatroniWheel: Bool { get }
    /// Whether it installs exporters on hosts (with `keel_monitoring`), and so needs the PgBouncer exporter's
    /// package on this machine where PgBouncer runs; false by default.
    static var installsExporters: Bool { get }
    /// Whether `--limit`, `--tags` and `--skip-tags` may narrow it; a flow whose plays depend on each other
    /// across hosts (a removal, a restore) must see the whole cluster.
    static var acceptsSelection: Bool { get }
    /// Refuses, before any host is contacted, what the flow cannot do with `model` (hosts it does not know, …).
    func check(_ model: ClusterModel) throws(FlowError)
    /// What it will do, shown before its confirmations are asked for (and under `--check`); nil shows nothing (the
    /// run's own output says it). No default: a flow's `-> String` would not be this requirement's witness.
    func plan(_ model: ClusterModel) -> String?
    /// The hosts the flow acts on that must be able to take its steps (``HostReadiness``), read before its plan is
    /// shown: a flow that would stop one member and fail on the next refuses instead. Nil (the default) for a flow
    /// that finishes what it finds (deploy, add-node: they wait for a package job and repair an interrupted dpkg).
    func readiness(_ model: ClusterModel) -> HostReadiness?
    /// What the operator confirms once the plan is shown, before any host changes; none by default.
    var confirmations: [FlowConfirmation] { get }
    /// The playbook for `model`, with what it pushes from this machine (``CarriedSoftware``).
    func playbook(_ model: ClusterModel, carrying software: CarriedSoftware) -> Playbook
    /// For a flow that adds or removes hosts, the hosts whose exporters' targets it takes away (none when it adds):
    /// with `keel_monitoring`, the scrape block is printed after the run. Nil (the default) leaves them as they were.
    func targetsRemoved(_ model: ClusterModel) -> [String]?
}

extension ClusterFlow {
    public func check(_ model: ClusterModel) throws(FlowError) {}
    public var confirmations: [FlowConfirmation] { [] }
    public func readiness(_ model: ClusterModel) -> HostReadiness? { nil }
    public static var acceptsSelection: Bool { false }
    public static var installsExporters: Bool { false }
    public func targetsRemoved(_ model: ClusterModel) -> [String]? { nil }
}

/// Refuses a host named twice (or an empty name) on `flow`'s command line: a typo, most likely, for another host.
func refuseDuplicates(_ hosts: [String], in flow: String) throws(FlowError) {
    if hosts.contains("") {
        throw FlowError("\(flow) is given an empty host name ('')", hint: "an unset shell variable? name the hosts")
    }
    var seen: Set<String> = []
    for host in hosts where !seen.insert(host).inserted {
        throw FlowError("\(flow) names \(host) twice", hint: "name each host once (was another host meant?)")
    }
}
