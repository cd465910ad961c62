import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("A balancer's PgBouncer, in front of the leader through the balancer's HAProxy")
struct BalancerPoolerTests {
    @Test(
        "on each balancer that is not a member: listening behind the VIP, reaching the leader through HAProxy's loopback listener over verified TLS, with a certificate of its own"
    )
    func configuration() throws {
        let (model, directory) = try ClusterModelTests().load()
        #expect(model.balancerPoolers == ["10.213.0.14", "10.213.0.15"])
        #expect(model.poolerHosts == model.databaseHosts + ["10.213.0.14", "10.213.0.15"])
        let balancer = try ClusterModelTests.host("10.213.0.14", directory)
        let steps = PgBouncerRole(host: balancer, model: model, settings: try #require(model.pgbouncer)).steps
        let main = try ClusterModelTests.rendered(steps, "/etc/pgbouncer/pgbouncer.ini", on: balancer)
        #expect(
            main.contains("\n* = host=127.0.0.1 port=5010\n")
                && main.contains("server_tls_sslmode = verify-full\nserver_tls_ca_file = /etc/pgbouncer/tls/ca.crt\n")
                && main.contains("client_tls_cert_file = /etc/pgbouncer/tls/server.crt\n"), "\(main)")
        let listen = try ClusterModelTests.rendered(steps, "/etc/pgbouncer/listen.ini", on: balancer)
        #expect(listen.contains("listen_addr = *\n"), "\(listen)")
        let key = try #require(
            steps.compactMap { $0.resource as? File }.first { $0.path == "/etc/pgbouncer/tls/server.key" })
        #expect(key.mode == 0o600 && key.owner == "postgres")

        // A member's PgBouncer stays in front of its own PostgreSQL, with Patroni's certificate.
        let member = try ClusterModelTests.host("10.213.0.12", directory)
        let own = try ClusterModelTests.rendered(
            PgBouncerRole(host: member, model: model, settings: try #require(model.pgbouncer)).steps,
            "/etc/pgbouncer/pgbouncer.ini", on: member)
        #expect(
            own.contains("\n* = host=127.0.0.1 port=5432\n") && !own.contains("server_tls")
                && own.contains("client_tls_cert_file = /etc/patroni/tls/server.crt\n"), "\(own)")

        // HAProxy's listener for it: on the loopback only, to each member's PostgreSQL, the leader's alone up.
        let haproxy = try ClusterModelTests.rendered(
            HAProxyRole(model: model, haproxy: try #require(model.haproxy), host: "10.213.0.14").steps,
            "/etc/haproxy/haproxy.cfg", on: balancer)
        let listener = try #require(haproxy.components(separatedBy: "listen pooled_leader\n").last)
        #expect(
            listener.hasPrefix("    bind 127.0.0.1:5010\n") && listener.contains("option httpchk GET /primary\n")
                && listener.contains("server 10.213.0.12 10.213.0.12:5432 check port 8008"), "\(haproxy)")
        #expect(haproxy.contains("listen master\n    bind *:5000\n"), "\(haproxy)")
        // Sessions end when their server is marked down for writes, not for reads.
        for (name, ends) in [("master", true), ("replicas", false), ("replicas_sync", false), ("pooled_leader", true)] {
            let section = try #require(
                haproxy.components(separatedBy: "listen \(name)\n").last?.components(separatedBy: "listen ").first)
            #expect(section.contains("rise 2 on-marked-down shutdown-sessions\n") == ends, "\(name): \(section)")
            #expect(section.contains("rise 2\n    server ") == !ends, "\(name): \(section)")
        }
        #expect(model.memberHBA.contains("hostssl all all 10.213.0.15/32 scram-sha-256"))
    }

    @Test("a balancer that is also a database host keeps its member's PgBouncer; none without HAProxy or PgBouncer")
    func notOnEveryBalancer() throws {
        let shared = ClusterModelTests.hosts.replacingOccurrences(
            of: "[balancers]\n10.213.0.14\n10.213.0.15\n", with: "[balancers]\n10.213.0.13\n10.213.0.14\n")
        #expect(try ClusterModelTests().load(hosts: shared).0.balancerPoolers == ["10.213.0.14"])
        let withoutPgBouncer = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\npgbouncer_install: false\n"
        ).0
        #expect(withoutPgBouncer.balancerPoolers.isEmpty && withoutPgBouncer.poolerHosts.isEmpty)
    }

    @Test(
        "paused only while it serves and HAProxy still routes to the leader handing over, with a timer that resumes it whatever happens; resumed once paused"
    )
    func pauseAndResume() throws {
        let (_, directory) = try ClusterModelTests().load()
        let balancer = try ClusterModelTests.host("10.213.0.14", directory)
        let paused = PoolersPaused(leader: "10.213.0.11")
        #expect(try paused.changes(from: ProbeOutput(text: "serving=1\nrouted=1"), on: balancer).count == 1)
        #expect(try paused.changes(from: ProbeOutput(text: "serving=1\npaused=1\nrouted=1"), on: balancer).isEmpty)
        #expect(try paused.changes(from: ProbeOutput(text: "routed=1"), on: balancer).isEmpty, "PgBouncer stopped")
        #expect(try paused.changes(from: ProbeOutput(text: ""), on: balancer).isEmpty, "handed over already")
        let pause = try #require(
            try paused.changes(from: ProbeOutput(text: "serving=1\nrouted=1"), on: balancer).first)
        let shown = pause.actions.map(\.description).joined()
        #expect(
            shown.contains("systemd-run --quiet --unit=keel-pgbouncer-resume --on-active=30")
                && shown.contains("systemctl kill --kill-who=main -s SIGUSR2 pgbouncer")
                && shown.contains("systemctl kill --kill-who=main -s SIGUSR1 pgbouncer"), "\(shown)")
        let resumed = PoolersResumed(leader: .other(than: "10.213.0.11"))
        #expect(try resumed.changes(from: ProbeOutput(text: ""), on: balancer).isEmpty)
        let resume = try #require(try resumed.changes(from: ProbeOutput(text: "paused=1"), on: balancer).first)
        let resuming = resume.actions.map(\.description).joined()
        #expect(
            resuming.contains("set server pooled_leader/10.213.0.11 health down")
                && resuming.hasSuffix(
                    "systemctl kill --kill-who=main -s SIGUSR2 pgbouncer && systemctl stop keel-pgbouncer-resume.timer"),
            "\(resuming)")
    }
}
