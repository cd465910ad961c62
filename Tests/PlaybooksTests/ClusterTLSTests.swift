import Foundation
import Keel
import KeelTestSupport
import Testing
import X509

@testable import Playbooks

@Suite("The cluster's CA and host certificates")
struct ClusterTLSTests {
    /// Writes `pem` to a new file and returns its path.
    private func file(_ pem: String, in directory: String, _ name: String) throws -> String {
        let path = directory + "/" + name
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(
        "each database host's certificate, and each balancer's for its PgBouncer, is signed by the cluster's CA and valid for its address and the VIP"
    )
    func issued() throws {
        let (model, directory) = try ClusterModelTests().load()
        let tls = try #require(model.tls)
        #expect(!model.balancerPoolers.isEmpty)
        #expect(
            Set(tls.issued.keys)
                == Set(
                    model.databaseHosts.map { ClusterTLS.Holder(host: $0, service: .database) }
                        + model.etcdHosts.map { ClusterTLS.Holder(host: $0, service: .etcd) }
                        + model.balancerPoolers.map { ClusterTLS.Holder(host: $0, service: .pooler) }
                        + model.balancerHosts.map { ClusterTLS.Holder(host: $0, service: .haproxy) }
                        + model.databaseHosts.map { ClusterTLS.Holder(host: $0, service: .apiClient) }
                        + model.balancerHosts.map { ClusterTLS.Holder(host: $0, service: .healthChecks) }))
        let authority = try file(tls.authority, in: directory, "ca.crt")
        let served =
            model.databaseHosts.map { ($0, TLSService.database) } + model.balancerPoolers.map { ($0, .pooler) }
        for (host, service) in served {
            let issued = try #require(tls.issued(service, on: host))
            #expect(issued.key.reveal().contains("BEGIN PRIVATE KEY") && "\(issued.key)" == "***")
            let certificate = try file(issued.certificate, in: directory, "\(host)-\(service).crt")
            // OpenSSL, as PostgreSQL and libpq use it, accepts the chain and the names.
            for check in [[], ["-verify_ip", model.address(of: host)], ["-verify_ip", "10.213.0.100"]] {
                let (status, output) = try Shell.capture(
                    "/usr/bin/openssl",
                    ["verify", "-CAfile", authority, "-purpose", "sslserver"] + check + [certificate])
                #expect(status == 0, "\(host) \(service) \(check): \(output)")
            }
            let (status, _) = try Shell.capture(
                "/usr/bin/openssl", ["verify", "-CAfile", authority, "-verify_ip", "10.213.0.99", certificate])
            #expect(status != 0, "not valid for an address it does not name")
        }
    }

    @Test(
        "each service's key is its own; of the cluster's CA only the database's and etcd's may be clients (so etcd takes no other), and only the database's names the loopback a balancer's PgBouncer verifies the leader by; the REST API's clients are the API clients' CA's, clients only"
    )
    func onePerService() throws {
        let (model, directory) = try ClusterModelTests().load()
        let variables = directory + "/group_vars/all.yml"
        try (String(contentsOfFile: variables, encoding: .utf8) + "\nkeel_monitoring: true\n")
            .write(toFile: variables, atomically: true, encoding: .utf8)
        let monitored = try ClusterModel.load(
            from: try Inventory.load(path: directory + "/hosts.ini"),
            secrets: ClusterSecrets(besideInventory: directory + "/hosts.ini"))
        let tls = try #require(monitored.tls)
        let authority = try file(tls.authority, in: directory, "ca.crt")
        let balancer = try #require(model.balancerPoolers.first)
        #expect(Set(TLSService.allCases.compactMap { tls.issued($0, on: balancer) }.map(\.certificate)).count == 4)
        let member = TLSService.allCases.filter { tls.issued($0, on: "10.213.0.11") != nil }
        #expect(Set(member) == [.database, .etcd, .exporters, .apiClient])
        #expect(tls.issued(.scraper, on: TLSService.scraperHolder) != nil)
        let apiAuthority = try file(tls.apiClientAuthority, in: directory, "api-ca.crt")
        let keys = tls.issued.values.map { $0.key.reveal() }
        #expect(Set(keys).count == keys.count, "a key serves two services")
        for (holder, issued) in tls.issued {
            let certificate = try file(issued.certificate, in: directory, "\(holder.host)-\(holder.service).crt")
            let asClient = try Shell.capture(
                "/usr/bin/openssl", ["verify", "-CAfile", authority, "-purpose", "sslclient", certificate])
            #expect(
                (asClient.status == 0) == [.database, .etcd].contains(holder.service),
                "\(holder) as a client: \(asClient.output)")
            let asAPIClient = try Shell.capture(
                "/usr/bin/openssl", ["verify", "-CAfile", apiAuthority, "-purpose", "sslclient", certificate])
            let apiClients: [TLSService] = [.apiClient, .healthChecks, .scraper]
            #expect(
                (asAPIClient.status == 0) == apiClients.contains(holder.service),
                "\(holder) as the API's client: \(asAPIClient.output)")
            let serves = try Shell.capture(
                "/usr/bin/openssl", ["verify", "-CAfile", apiAuthority, "-purpose", "sslserver", certificate])
            #expect(serves.status != 0, "\(holder) serves with the API clients' CA")
            let loopback = try Shell.capture(
                "/usr/bin/openssl",
                ["verify", "-CAfile", authority, "-purpose", "sslserver", "-verify_ip", "127.0.0.1", certificate])
            #expect((loopback.status == 0) == (holder.service == .database), "\(holder) for 127.0.0.1")
        }
    }

    @Test("certificates are kept across runs, issued again when the VIP changes, and absent without tls_cert_generate")
    func keptAndReissued() throws {
        let (first, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let again = try ClusterModel.load(from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path))
        #expect(again.tls?.authority == first.tls?.authority)
        #expect(
            again.tls?.issued(.database, on: "10.213.0.11")?.certificate
                == first.tls?.issued(.database, on: "10.213.0.11")?.certificate)
        #expect(again.generatedSecrets.isEmpty && again.pgbouncer?.clientTLS == "prefer")

        let variables = directory + "/group_vars/all.yml"
        try String(contentsOfFile: variables, encoding: .utf8)
            .replacingOccurrences(of: "10.213.0.100", with: "10.213.0.101")
            .write(toFile: variables, atomically: true, encoding: .utf8)
        let moved = try ClusterModel.load(
            from: try Inventory.load(path: inventory.path), secrets: ClusterSecrets(besideInventory: inventory.path))
        #expect(moved.tls?.authority == first.tls?.authority)
        let pem = try #require(moved.tls?.issued(.database, on: "10.213.0.11")?.certificate)
        let certificate = try Certificate(pemEncoded: pem)
        #expect(pem != first.tls?.issued(.database, on: "10.213.0.11")?.certificate)
        let names = try certificate.extensions.subjectAlternativeNames
        #expect(names?.contains(.ipAddress(.init(contentBytes: [10, 213, 0, 101]))) == true)

        try (String(contentsOfFile: variables, encoding: .utf8) + "\ntls_cert_generate: false\n")
            .write(toFile: variables, atomically: true, encoding: .utf8)
        let plain = try ClusterModel.load(
            from: try Inventory.load(path: inventory.path), secrets: ClusterSecrets(besideInventory: inventory.path))
        #expect(plain.tls == nil && plain.pgbouncer?.clientTLS == "disable")
    }
}

extension ClusterTLSTests {
    @Test("after the CA is replaced, every host's certificate is issued again by the new CA, none kept from the old")
    func reissuedForNewAuthority() throws {
        let (first, directory) = try ClusterModelTests().load()
        let secretsFile = directory + "/.keel-secrets.yml"
        // The documented rotation: the CA's lines removed, the hosts' certificates left.
        let kept =
            try String(contentsOfFile: secretsFile, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("tls_ca_") }.joined(separator: "\n") + "\n"
        try kept.write(toFile: secretsFile, atomically: true, encoding: .utf8)
        let rotated = try ClusterModel.load(
            from: try Inventory.load(path: directory + "/hosts.ini"),
            secrets: ClusterSecrets(besideInventory: directory + "/hosts.ini"))
        let authority = try Certificate(pemEncoded: try #require(rotated.tls?.authority))
        #expect(rotated.tls?.authority != first.tls?.authority)
        for host in rotated.databaseHosts {
            let pem = try #require(rotated.tls?.issued(.database, on: host)?.certificate)
            #expect(
                pem != first.tls?.issued(.database, on: host)?.certificate, "\(host) keeps the old CA's certificate")
            let certificate = try Certificate(pemEncoded: pem)
            #expect(certificate.issuer == authority.subject)
            #expect(authority.publicKey.isValidSignature(certificate.signature, for: certificate))
        }
    }

    @Test("a secrets file whose CA key is not its CA certificate's is refused, naming both, before any host is touched")
    func mismatchedAuthority() throws {
        let (_, directory) = try ClusterModelTests().load()
        let (_, other) = try ClusterModelTests().load()
        func line(_ name: String, in directory: String) throws -> String {
            try #require(
                try String(contentsOfFile: directory + "/.keel-secrets.yml", encoding: .utf8)
                    .split(separator: "\n").first { $0.hasPrefix(name + ":") }.map(String.init))
        }
        let secretsFile = directory + "/.keel-secrets.yml"
        try String(contentsOfFile: secretsFile, encoding: .utf8)
            .replacingOccurrences(
                of: try line("tls_ca_key", in: directory), with: try line("tls_ca_key", in: other)
            )
            .write(toFile: secretsFile, atomically: true, encoding: .utf8)
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let error = #expect(throws: InventoryError.self) {
            try ClusterModel.load(from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path))
        }
        #expect(
            error?.description.contains(
                "cannot make the cluster's TLS certificates: tls_ca_key is not the key of tls_ca_certificate") == true,
            "\(String(describing: error))")
    }
}
