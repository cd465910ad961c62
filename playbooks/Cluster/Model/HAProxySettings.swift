import Keel

/// HAProxy on the balancers: its ports (`haproxy_listen_port`) and the password of its stats page.
public struct HAProxySettings: Sendable {
    public struct Ports: Sendable, Equatable {
        public var primary = 5000, replicas = 5001, sync = 5002, async = 5003, stats = 7000
    }

    public var ports: Ports
    /// Generated into the secrets file, never in the inventory.
    public var statsPassword: Secret
}
