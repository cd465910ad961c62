import Keel

/// `etcdctl` command lines (API v3) against some etcd members, run on a cluster host as root.
struct Etcdctl {
    /// Client URLs, comma-separated.
    let endpoints: String
    /// The CA that vouches for the members and the certificate presented to them, when etcd serves TLS.
    let client: TLSFiles?

    /// Every member of the cluster's etcd, reached with the host's `client` files (`.patroni` on a database host).
    init(_ model: ClusterModel, client: TLSFiles) {
        endpoints = model.etcdEndpoints
        self.client = model.etcdTLS ? client : nil
    }

    /// The members at `addresses`, reached with the host's `client` files (etcd's own on an etcd host).
    init(_ model: ClusterModel, client: TLSFiles = .etcd, members addresses: [String]) {
        endpoints = addresses.map { "\(model.etcdScheme)://\($0):\(ClusterPorts.etcdClient)" }.joined(separator: ",")
        self.client = model.etcdTLS ? client : nil
    }

    /// The member at `address`, as the etcd host itself reaches it (with etcd's own files).
    init(_ model: ClusterModel, member address: String) { self.init(model, members: [address]) }

    private init(plain url: String) {
        endpoints = url
        client = nil
    }

    /// The etcd member on this host as Debian's package starts it: plain HTTP on localhost.
    static let debianDefault = Etcdctl(plain: "http://127.0.0.1:\(ClusterPorts.etcdClient)")

    /// `etcdctl` with `arguments`.
    func callAsFunction(_ arguments: ShellCommand) -> ShellCommand {
        let tls = client.map { files -> ShellCommand in
            " --cacert=\(files.authority) --cert=\(files.certificate) --key=\(files.key)"
        }
        return "ETCDCTL_API=3 etcdctl --endpoints=\(endpoints)\(tls ?? "") \(arguments)"
    }

    /// Prints the value of `key` (nothing when it is absent).
    func get(_ key: String) -> ShellCommand { self("get --print-value-only \(key)") }

    /// Succeeds when every endpoint is healthy.
    var health: ShellCommand { self("endpoint health") }
}
