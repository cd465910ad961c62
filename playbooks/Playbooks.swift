import Keel

/// The cluster flows the command line offers, each a command of its own.
public enum Playbooks {
    public static let clusterFlows: [any ClusterFlow.Type] = [DeployFlow.self]
}
