import Foundation
import KeelTestSupport
import Testing

/// One certificate per service, as an outsider on the lab's bridge holding one service's key finds it.
extension LabTests {
    /// From this machine, etcd on h1 answers a read with Patroni's certificate (h1's database one) and refuses the
    /// certificates of the exporters (h1's, `prometheus`'s), HAProxy's metrics and a balancer's PgBouncer (h4's):
    /// none of those keys writes Patroni's DCS.
    func etcdTakesOnlyPatroni(_ cluster: LabClusterInventory) async throws {
        let work = cluster.directory + "/service-keys"
        try FileManager.default.createDirectory(
            atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        /// Copies a host's file here; returns where.
        func copied(_ host: String, _ path: String, as name: String) async throws -> String {
            let text = try await remote(cluster.path, host, "cat \(path)").joined(separator: "\n") + "\n"
            _ = FileManager.default.createFile(
                atPath: "\(work)/\(name)", contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            return "\(work)/\(name)"
        }
        /// curl's options presenting the certificate and key in `directory` on `host`.
        func presenting(_ host: String, _ directory: String, as name: String) async throws -> [String] {
            [
                "--cert", try await copied(host, directory + "/server.crt", as: name + ".crt"),
                "--key", try await copied(host, directory + "/server.key", as: name + ".key"),
            ]
        }
        let authority = try await copied("h1", "/etc/patroni/tls/ca.crt", as: "ca.crt")
        let patroni = try await presenting("h1", "/etc/patroni/tls", as: "patroni")
        let others = [
            "the exporters'": try await presenting("h1", "/etc/prometheus/keel/tls", as: "exporters"),
            "HAProxy's": ["--cert", try await copied("h4", "/etc/haproxy/keel.pem", as: "haproxy.pem")],
            "a balancer's PgBouncer's": try await presenting("h4", "/etc/pgbouncer/tls", as: "pooler"),
        ]
        /// etcd's answer to a read of the DCS with `certificate`: its HTTP status, 000 when refused.
        func read(with certificate: [String]) throws -> String {
            try Shell.capture(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10", "--cacert", authority] + certificate
                    + [
                        "-X", "POST", "-d", #"{"key":"L3NlcnZpY2Uv","range_end":"L3NlcnZpY2Uw"}"#,
                        "https://10.213.0.11:2379/v3/kv/range",
                    ]
            ).output
        }
        #expect(try read(with: patroni) == "200", "Patroni's certificate no longer reads etcd")
        for (name, certificate) in others {
            #expect(try read(with: certificate) == "000", "etcd answered \(name) certificate")
        }
        try FileManager.default.removeItem(atPath: work)
    }
}
