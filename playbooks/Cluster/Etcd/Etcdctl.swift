import Keel

/// `etcdctl` command lines (API v3) against some etcd members, run on a cluster host.
struct Etcdctl {
    /// Client URLs, comma-separated.
    let endpoints: String

    /// Every member of the cluster's etcd.
    init(_ model: ClusterModel) { endpoints = model.etcdEndpoints }
    /// One member, at its client address.
    init(member address: String) { endpoints = "http://\(address):2379" }

    /// The etcd member on this host.
    static let local = Etcdctl(member: "127.0.0.1")

    /// `etcdctl` with `arguments`, already quoted.
    func callAsFunction(_ arguments: String) -> String { "ETCDCTL_API=3 etcdctl --endpoints=\(endpoints) \(arguments)" }

    /// Prints the value of `key` (nothing when it is absent).
    func get(_ key: String) -> String { self("get --print-value-only \(shellQuote(key))") }

    /// Succeeds when every endpoint is healthy; with `json`, prints their health as JSON.
    func health(json: Bool = false) -> String { self("endpoint health" + (json ? " -w json" : "")) }
}
