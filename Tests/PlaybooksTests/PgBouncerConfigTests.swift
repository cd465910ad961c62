import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("PgBouncer's configuration")
struct PgBouncerConfigTests {
    @Test(
        "where it listens restarts it, one member at a time; everything else, pools and TLS included, only reloads it")
    func reloadUnlessListening() throws {
        let (model, directory) = try ClusterModelTests().load()
        let host = HostContext(
            name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let steps = PgBouncerRole(host: host, model: model).steps
        func template(_ path: String) throws -> Step {
            try #require(steps.first { ($0.resource as? Template)?.path == path })
        }
        let listen = try template("/etc/pgbouncer/listen.ini")
        let main = try template("/etc/pgbouncer/pgbouncer.ini")
        #expect(
            listen.handlers == [PgBouncerPlays.restart(model).handler] && main.handlers == [.reload("pgbouncer")])
        let listening = try #require(listen.resource as? Template).render(for: host)
        #expect(listening.contains("listen_addr = 10.213.0.12,127.0.0.1\nlisten_port = 6432\n"), "\(listening)")
        let text = try #require(main.resource as? Template).render(for: host)
        #expect(
            text.contains("[pgbouncer]\n; Where PgBouncer listens")
                && text.contains("%include /etc/pgbouncer/listen.ini\n"))
        #expect(!text.contains("listen_addr") && text.contains("client_tls_sslmode = prefer\n"), "\(text)")
        #expect(text.contains("\nserver_login_retry = 1\n"), "a restarted PostgreSQL is logged in to again after 1 s")
    }
}
