import Foundation
import Keel
import KeelTestSupport
import Testing

/// A cluster run by Debian 12's own Patroni 3.0.2 with etcd v3 (unsafe after a partition) replaced by Keel's
/// Patroni in place, one member at a time, keeping its data.
extension LabTests {
    /// The first deploy after a takeover without keel_upgrade_patroni: it turns member TLS to verify-full, which
    /// changes patroni.yml and reloads Patroni on h1..h3, nothing else.
    func deployVerifyingMemberTLS(_ cluster: LabClusterInventory, events: String) async throws {
        let verified = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        #expect(verified.status == 0, "\(verified)")
        let converted = try EventStream(path: events)
        let expected = Set(["h1", "h2", "h3"].map { "\($0): template /etc/patroni/patroni.yml" })
        #expect(Set(converted.changedSteps) == expected, "\(verified)")
        if Set(converted.changedSteps) != expected {
            // What each Patroni flagged, and when: a restart left pending by the run before shows here.
            for host in ["h1", "h2", "h3"] {
                let log = try await remote(
                    cluster.path, host,
                    "journalctl -u patroni --since -15min --no-pager -o short-precise | grep -iE 'restart|changed|promot|demot' | tail -40"
                )
                print("\(host)'s Patroni log:\n" + log.joined(separator: "\n"))
            }
        }
        #expect(
            Set(converted.handlers) == Set(["h1", "h2", "h3"].map { "\($0): reload patroni" }), "\(verified)")
    }

    /// Debian's Patroni 3.0.2 configuration for member `host` (address `address`) of scope `lab`, in etcd v3.
    private func debianPatroniConfig(_ host: String, _ address: String, superuser: String, replication: String)
        -> String
    {
        """
        scope: lab
        namespace: /service/
        name: \(host)
        restapi:
          listen: \(address):8008
          connect_address: \(address):8008
        etcd3:
          hosts: 10.213.0.11:2379,10.213.0.12:2379,10.213.0.13:2379
        bootstrap:
          dcs:
            ttl: 30
            loop_wait: 10
            retry_timeout: 10
            postgresql:
              use_pg_rewind: true
              parameters:
                wal_level: replica
                hot_standby: 'on'
                wal_log_hints: 'on'
                max_wal_senders: 10
                max_replication_slots: 10
          initdb:
          - encoding: UTF8
          - data-checksums
        postgresql:
          listen: \(address),127.0.0.1:5432
          connect_address: \(address):5432
          data_dir: /var/lib/postgresql/15/main
          bin_dir: /usr/lib/postgresql/15/bin
          pgpass: /var/lib/postgresql/.pgpass_patroni
          authentication:
            superuser: {username: postgres, password: \(superuser)}
            replication: {username: replicator, password: \(replication)}
          parameters:
            unix_socket_directories: /var/run/postgresql
          pg_hba:
          - local all all peer
          - host replication replicator 10.213.0.0/24 scram-sha-256
          - host all all 10.213.0.0/24 scram-sha-256
          - host all all 127.0.0.1/32 scram-sha-256

        """
    }

    /// Waits up to a minute for the PostgreSQL of `host` to accept connections on its socket. Once in CI a member
    /// was down just after the deploy (likely a former primary still rejoining, which `inService` now waits for):
    /// any wait is printed with the member's Patroni log, and a member still down fails the read that follows.
    private func awaitPostgreSQL(_ inventory: String, on host: String) async throws {
        let waited = try await remote(
            inventory, host,
            "for i in $(seq 0 60); do pg_isready -q -h /var/run/postgresql && echo $i && exit 0; sleep 1; done; echo 61"
        )
        guard let seconds = waited.first.flatMap({ Int($0) }), seconds > 0 else { return }
        let log = try await remote(inventory, host, "journalctl -u patroni -n 80 --no-pager -o short-precise")
        print(
            "\(host)'s PostgreSQL accepted connections after \(seconds) s; its Patroni log:\n"
                + log.joined(separator: "\n"))
    }

    @Test(
        "a running cluster of Debian's Patroni 3.0.2 is replaced in place with keel_upgrade_patroni: one member at a time, the same data on every member, then 0 changed",
        .lab(hosts: 3, fresh: true)
    )
    func deployReplacesRunningUnsafePatroni() async throws {
        let cluster = try LabClusterInventory(databaseHostsOnly: true)
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let (superuser, replication) = ("Old-superuser-1", "Old-replication-1")
        let variables =
            try String(contentsOfFile: variablesPath, encoding: .utf8)
            + "\npatroni_superuser_password: \"\(superuser)\"\npatroni_replication_password: \"\(replication)\"\n"
            // As postgresql_cluster 1.x deployed it, etcd without TLS; it stays so.
            + "etcd_tls_enable: false\n"
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)

        // etcd from Keel; then, as a postgresql_cluster deployment on Debian 12 would have it, Debian's Patroni.
        let etcd = try await KeelBinary.run(["deploy", "-i", cluster.path, "--tags", "etcd"])
        #expect(etcd.status == 0, "\(etcd)")
        // The packages on the three hosts at once; then Patroni started on h1 first, so that it leads.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in ["h1", "h2", "h3"] {
                group.addTask {
                    _ = try await remote(
                        cluster.path, host,
                        "timeout 120 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends postgresql-15 patroni >/dev/null"
                            + " && pg_dropcluster --stop 15 main")
                }
            }
            try await group.waitForAll()
        }
        for (index, host) in ["h1", "h2", "h3"].enumerated() {
            let config = debianPatroniConfig(
                host, "10.213.0.1\(index + 1)", superuser: superuser, replication: replication)
            _ = try await remote(
                cluster.path, host,
                "printf '%s' \(shellQuote(config)) > /etc/patroni/config.yml"
                    + " && chown postgres: /etc/patroni/config.yml && chmod 600 /etc/patroni/config.yml && systemctl restart patroni"
                    + " && for i in $(seq 120); do curl -sf -o /dev/null http://10.213.0.1\(index + 1):8008/health && exit 0; sleep 1; done; exit 1"
            )
        }
        let streaming =
            "cd /tmp && runuser -u postgres -- psql -XAtq -c \"SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'\""
        _ = try await remote(
            cluster.path, "h1", "for i in $(seq 120); do [ \"$(\(streaming))\" = 2 ] && exit 0; sleep 1; done; exit 1")
        let rows = "SELECT count(*), md5(string_agg(n::text, ',' ORDER BY n)) FROM kept"
        _ = try await remote(
            cluster.path, "h1",
            "cd /tmp && runuser -u postgres -- psql -XAtq -c 'CREATE TABLE kept AS SELECT generate_series(1, 1000) AS n'"
        )
        let identity = try await remote(
            cluster.path, "h1",
            "cd /tmp && runuser -u postgres -- psql -XAtq -c 'SELECT system_identifier FROM pg_control_system()'")

        try (variables + "keel_upgrade_patroni: true\n").write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let upgrade = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(upgrade.status == 0, "\(upgrade)")
        for host in ["h1", "h2", "h3"] {
            #expect(
                upgrade.output.contains("\(host) | changed | Debian's older Patroni, stopped if it runs"),
                "\(upgrade)")
        }
        let healthy = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            healthy.filter { $0["role"] as? String == "leader" }.count == 1 && streamingReplicas(healthy).count == 2,
            "\(healthy)")
        for host in ["h1", "h2", "h3"] {
            let patroni = try await remote(
                cluster.path, host,
                "dpkg-query -W -f '${db:Status-Abbrev}' patroni; echo; systemctl show -p ExecStart --value patroni"
            )
            .joined(separator: "\n")
            #expect(!patroni.contains("ii ") && patroni.contains("/opt/patroni/bin/patroni"), "\(host): \(patroni)")
            try await awaitPostgreSQL(cluster.path, on: host)
            let same = try await remote(
                cluster.path, host,
                "cd /tmp && runuser -u postgres -- psql -XAtq -c \"\(rows)\" -c 'SELECT system_identifier FROM pg_control_system()'"
            )
            #expect(
                same.first?.hasPrefix("1000|") == true && same.last == identity.first,
                "\(host) holds the same cluster and rows: \(same) vs \(identity)")
        }

        // Without keel_upgrade_patroni, the next run verifies every member (sslmode=verify-full): patroni.yml and
        // a reload on each, nothing else; the replicas stream again over verified TLS; then nothing changes.
        try variables.write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let events = cluster.path + ".events"
        try await deployVerifyingMemberTLS(cluster, events: events)
        let afterReload = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        // Patroni rewrites primary_conninfo on its next cycle after the reload; the walreceiver then reconnects.
        for replica in streamingReplicas(afterReload) {
            let query = "SELECT status || ' ' || (conninfo LIKE '%sslmode=verify-full%') FROM pg_stat_wal_receiver"
            let receiver = try await remote(
                cluster.path, replica,
                "cd /tmp && for i in $(seq 90); do r=$(runuser -u postgres -- psql -XAtq -c \"\(query)\"); "
                    + "[ \"$r\" = 'streaming true' ] && break; sleep 1; done; echo \"$r\"")
            #expect(receiver == ["streaming true"], "\(replica) streams over verified TLS: \(receiver)")
        }
        let again = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedPerHost == ["h1": 0, "h2": 0, "h3": 0], "\(again)")
    }

}
