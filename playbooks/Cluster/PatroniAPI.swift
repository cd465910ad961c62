import KeelSSH

/// Shell commands against one member's Patroni REST API (port 8008), run on a cluster host.
struct PatroniAPI {
    let url: String

    init(address: String) { url = "http://\(address):8008" }
    init(_ model: ClusterModel, member: String) { self.init(address: model.address(of: member)) }

    /// Prints the JSON at `path`; fails when the member does not answer.
    func get(_ path: String) -> String { "curl -sf -m 5 \(url)\(path)" }

    /// Succeeds when the JSON at `path` contains one of `fragments` (`"role": "leader"`).
    func shows(_ path: String, _ fragments: String...) -> String {
        get(path) + " | grep -q" + fragments.map { " -e " + shellQuote($0) }.joined()
    }

    /// Succeeds when the member is the primary, or a replica streaming WAL from it.
    var inService: String { shows("/patroni", #""replication_state": "streaming""#, #""role": "primary""#) }
}
