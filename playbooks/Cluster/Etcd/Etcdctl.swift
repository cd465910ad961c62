import Keel

/// `etcdctl` command lines (API v3) against some etcd members, run on a cluster host as root.
struct Etcdctl {
    /// The members' addresses, and their client URLs, comma-separated.
    let addresses: [String]
    let endpoints: String
    /// The CA that vouches for the members and the certificate presented to them, when etcd serves TLS.
    let client: TLSFiles?

    /// Every member of the cluster's etcd, reached with the host's `client` files (`.patroni` on a database host).
    init(_ model: ClusterModel, client: TLSFiles) {
        self.init(model, client: client, members: model.etcdHosts.map(model.address(of:)))
    }

    /// The members at `addresses`, reached with the host's `client` files (etcd's own on an etcd host).
    init(_ model: ClusterModel, client: TLSFiles = .etcd, members addresses: [String]) {
        self.addresses = addresses
        endpoints = addresses.map(model.etcdClientURL).joined(separator: ",")
        self.client = model.etcdTLS ? client : nil
    }

    /// The member at `address`, as the etcd host itself reaches it (with etcd's own files).
    init(_ model: ClusterModel, member address: String) { self.init(model, members: [address]) }

    private init(plain address: String) {
        addresses = [address]
        endpoints = "http://\(address):\(ClusterPorts.etcdClient)"
        client = nil
    }

    /// The etcd member on this host as Debian's package starts it: plain HTTP on localhost.
    static let debianDefault = Etcdctl(plain: "127.0.0.1")

    /// `etcdctl` with `arguments`.
    func callAsFunction(_ arguments: ShellCommand) -> ShellCommand {
        let tls = client.map { files -> ShellCommand in
            " --cacert=\(files.authority) --cert=\(files.certificate) --key=\(files.key)"
        }
        return "ETCDCTL_API=3 etcdctl --endpoints=\(endpoints)\(tls ?? "") \(arguments)"
    }

    /// Prints the value of `key` (nothing when it is absent).
    func get(_ key: String) -> ShellCommand { self("get --print-value-only \(key)") }

    /// Succeeds when every endpoint is healthy; at once when one's port is closed (a member not started yet).
    var health: ShellCommand { "\(portChecks.joined(separator: " && ")) && \(self("endpoint health"))" }

    /// Succeeds when one of the members accepts connections on its client port (fails when there is none). On a
    /// new cluster none does, and etcdctl would spend its whole timeout finding that out.
    var anyListens: ShellCommand { portChecks.isEmpty ? "false" : "{ \(portChecks.joined(separator: " || ")); }" }

    private var portChecks: [ShellCommand] { addresses.map { .portAccepts($0, ClusterPorts.etcdClient) } }
}
