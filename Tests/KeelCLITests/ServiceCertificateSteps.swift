import Foundation
import KeelTestSupport
import Testing

/// One certificate per service, as an outsider on the lab's bridge holding one service's key finds it.
extension LabTests {
    /// From this machine, etcd on h1 answers a read with Patroni's certificate (h1's database one) and refuses the
    /// certificates of the exporters (h1's, `prometheus`'s), HAProxy's metrics and a balancer's PgBouncer (h4's) and
    /// the REST API's clients (h1's own, HAProxy's checks): none of those keys writes Patroni's DCS. Patroni's API on
    /// h1 answers `GET /config` to its clients' certificates alone: not to an outsider without one, nor to the
    /// database's, the exporters' or HAProxy's metrics'.
    func certificatesOpenOnlyTheirService(_ cluster: LabClusterInventory) async throws {
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
        func presenting(_ host: String, _ directory: String, as name: String, stem: String = "server") async throws
            -> [String]
        {
            [
                "--cert", try await copied(host, "\(directory)/\(stem).crt", as: name + ".crt"),
                "--key", try await copied(host, "\(directory)/\(stem).key", as: name + ".key"),
            ]
        }
        let authority = try await copied("h1", "/etc/patroni/tls/ca.crt", as: "ca.crt")
        let patroni = try await presenting("h1", "/etc/patroni/tls", as: "patroni")
        let others = [
            "the exporters'": try await presenting("h1", "/etc/prometheus/keel/tls", as: "exporters"),
            "HAProxy's": ["--cert", try await copied("h4", "/etc/haproxy/keel.pem", as: "haproxy.pem")],
            "a balancer's PgBouncer's": try await presenting("h4", "/etc/pgbouncer/tls", as: "pooler"),
        ]
        let apiClients = [
            "the member's API client": try await presenting("h1", "/etc/patroni/tls/api", as: "api", stem: "client"),
            "HAProxy's checks'": [
                "--cert", try await copied("h4", "/etc/haproxy/patroni-checks.pem", as: "checks.pem"),
            ],
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
        for (name, certificate) in others.merging(apiClients, uniquingKeysWith: { $1 }) {
            #expect(try read(with: certificate) == "000", "etcd answered \(name) certificate")
        }
        /// Patroni's answer to `GET /config` with `certificate`: its HTTP status, 000 when refused.
        func configuration(with certificate: [String]) throws -> String {
            try Shell.capture(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10", "--cacert", authority] + certificate
                    + ["https://10.213.0.11:8008/config"]
            ).output
        }
        for (name, certificate) in others.merging(["no": [], "the database's": patroni], uniquingKeysWith: { $1 }) {
            #expect(try configuration(with: certificate) == "000", "Patroni's API answered \(name) certificate")
        }
        for (name, certificate) in apiClients {
            #expect(try configuration(with: certificate) == "200", "Patroni's API refused \(name) certificate")
        }
        try FileManager.default.removeItem(atPath: work)
    }
}
