import Keel

/// A job Keel does on a whole cluster (deploy, add a node, restore, …): a playbook made from the cluster's
/// model, which the command line runs after loading the inventory, the model and its secrets.
public protocol ClusterFlow {
    /// The command's name: `deploy`.
    static var name: String { get }
    /// One line on what it does, for `--help`.
    static var summary: String { get }
    /// Whether it may generate secrets the inventory leaves empty (a new cluster's passwords and keys) and keep
    /// them; a flow that may not sees only the secrets already kept.
    static var writesSecrets: Bool { get }
    /// Whether it installs Patroni on hosts, and so needs the Patroni wheel on this machine.
    static var needsPatroniWheel: Bool { get }
    /// The playbook for `model`; `patroniWheel` is empty unless ``needsPatroniWheel``.
    static func playbook(_ model: ClusterModel, patroniWheel: [UInt8]) -> Playbook
}
