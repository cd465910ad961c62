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
        let steps = PgBouncerRole(host: host, model: model, settings: try #require(model.pgbouncer)).steps
        func template(_ path: String) throws -> Step {
            try #require(steps.first { ($0.resource as? Template)?.path == path })
        }
        let listen = try template("/etc/pgbouncer/listen.ini")
        let main = try template("/etc/pgbouncer/pgbouncer.ini")
        #expect(
            listen.handlers == [PgBouncerPlays.restart(port: 6432).handler] && main.handlers == [.reload("pgbouncer")])
        let listening = try #require(listen.resource as? Template).render(for: host)
        #expect(listening.contains("listen_addr = 10.213.0.12,127.0.0.1\nlisten_port = 6432\n"), "\(listening)")
        let text = try #require(main.resource as? Template).render(for: host)
        #expect(
            text.contains("[pgbouncer]\n; Where PgBouncer listens")
                && text.contains("%include /etc/pgbouncer/listen.ini\n"))
        #expect(!text.contains("listen_addr") && text.contains("client_tls_sslmode = prefer\n"), "\(text)")
        #expect(text.contains("\nserver_login_retry = 1\n"), "a restarted PostgreSQL is logged in to again after 1 s")
    }

    @Test(
        "logins go by hba.conf, written before the file that turns it on: the monitoring role from the socket alone, every other with its SCRAM password"
    )
    func loginsByOrigin() throws {
        let (model, directory) = try ClusterModelTests().load(vars: MonitoringRoleTests.on)
        let host = HostContext(
            name: "10.213.0.14", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let steps = PgBouncerRole(host: host, model: model, settings: try #require(model.pgbouncer)).steps
        let paths = steps.compactMap { ($0.resource as? Template)?.path }
        let hbaIndex = try #require(paths.firstIndex(of: PgBouncerRole.hba))
        #expect(hbaIndex < (paths.firstIndex(of: "/etc/pgbouncer/pgbouncer.ini") ?? 0), "\(paths)")
        let hba = try ClusterModelTests.rendered(steps, PgBouncerRole.hba, on: host)
        #expect(
            hba.contains(
                "local all all scram-sha-256\n# The monitoring role only over the local socket, as the PgBouncer "
                    + "exporter reads the console: its password opens\n# nothing from the network.\n"
                    + "host all keel_monitoring 0.0.0.0/0 reject\nhost all keel_monitoring ::/0 reject\n"
                    + "host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n"), "\(hba)")
        let main = try ClusterModelTests.rendered(steps, "/etc/pgbouncer/pgbouncer.ini", on: host)
        #expect(main.contains("auth_type = hba\nauth_hba_file = /etc/pgbouncer/hba.conf\n"), "\(main)")

        let (plain, plainDirectory) = try ClusterModelTests().load()
        let plainHost = HostContext(
            name: "10.213.0.14", inventory: try Inventory.load(path: plainDirectory + "/hosts.ini"), facts: Facts())
        let plainHBA = try ClusterModelTests.rendered(
            PgBouncerRole(host: plainHost, model: plain, settings: try #require(plain.pgbouncer)).steps,
            PgBouncerRole.hba, on: plainHost)
        #expect(!plainHBA.contains("reject"), "\(plainHBA)")
    }

    @Test("pool mode, the connection limit per database and the wait for a server come from the reference's names")
    func poolSettings() throws {
        func rendered(_ vars: String) throws -> String {
            let (model, directory) = try ClusterModelTests().load(vars: ClusterModelTests.vars + vars)
            let host = HostContext(
                name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
            let settings = try #require(model.pgbouncer)
            let main = try #require(
                PgBouncerRole(host: host, model: model, settings: settings).steps.compactMap {
                    $0.resource as? Template
                }.first {
                    $0.path == "/etc/pgbouncer/pgbouncer.ini"
                })
            return try main.render(for: host)
        }
        let defaults = try rendered("")
        #expect(
            defaults.contains("pool_mode = session\n") && defaults.contains("max_db_connections = 0\n")
                && defaults.contains("query_wait_timeout = 120\n"), "\(defaults)")
        let set = try rendered(
            "\npgbouncer_default_pool_mode: \"transaction\"\npgbouncer_max_db_connections: 300\n"
                + "pgbouncer_query_wait_timeout: 30\n")
        #expect(
            set.contains("pool_mode = transaction\n") && set.contains("max_db_connections = 300\n")
                && set.contains("query_wait_timeout = 30\n"), "\(set)")
        let wrong = ClusterModelTests().error(vars: ClusterModelTests.vars + "\npgbouncer_default_pool_mode: \"txn\"\n")
        #expect(
            wrong?.message == "pgbouncer_default_pool_mode 'txn' is not a pool mode", "\(String(describing: wrong))")
    }
}
