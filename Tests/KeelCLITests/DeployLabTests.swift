import Foundation
import KeelTestSupport
import Testing

/// The deploy flow on fresh lab hosts: etcd + Patroni + PostgreSQL on h1..h3. Part of the lab suite, which runs
/// one test at a time because tests share the hosts.
extension LabTests {
    func sql(_ inventory: String, _ host: String, _ query: String, database: String = "postgres") async throws
        -> KeelRun
    {
        try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", host, "--",
            "runuser -u postgres -- psql -XAtq -d \(database) -c \"\(query)\"",
        ])
    }

    /// Polls `keel status --json` until `accept` holds (or `seconds` pass); returns the last members seen.
    func members(_ inventory: String, within seconds: Int, until accept: ([[String: Any]]) -> Bool) async throws
        -> [[String: Any]]
    {
        var members: [[String: Any]] = []
        for _ in 0..<seconds {
            let status = try await KeelBinary.run(["status", "-i", inventory, "--json"])
            let json = try? JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
            members = json?["members"] as? [[String: Any]] ?? []
            if accept(members) { break }
            try await Task.sleep(for: .seconds(1))
        }
        return members
    }

    /// The hosts whose rolling restart for pending parameter changes changed something in the run `events` record.
    func restarted(_ events: String) throws -> [String] {
        try EventStream(path: events).changedSteps.filter {
            $0.hasSuffix(": rolling restart of members with pending parameter changes")
        }
    }

    func streamingReplicas(_ members: [[String: Any]]) -> [String] {
        members.filter {
            ["replica", "sync_standby"].contains($0["role"] as? String) && $0["state"] as? String == "streaming"
        }
        .compactMap { $0["name"] as? String }.sorted()
    }

    /// Runs `sql` as the app user through `host:port` (the VIP's HAProxy ports or a member's PgBouncer), from h1;
    /// with `authority`, over TLS verified against that CA file (`sslmode=verify-full`).
    func appSQL(
        _ cluster: LabClusterInventory, on node: String = "h1", _ host: String, _ port: Int, _ sql: String,
        verifyingWith authority: String? = nil, withoutTLS: Bool = false
    ) async throws -> String {
        let password = try cluster.secret("user_app")
        let tls =
            authority.map { "PGSSLMODE=verify-full PGSSLROOTCERT=\($0) " } ?? (withoutTLS ? "PGSSLMODE=disable " : "")
        let command = "\(tls)PGPASSWORD=\(password) psql -h \(host) -p \(port) -U app -d app -XAtq -c \"\(sql)\""
        return try await KeelBinary.run(["exec", "-i", cluster.path, "--limit", node, "--", command]).output
    }

    /// The first part of the day-2 test (which goes on with the same cluster): deploy (HAProxy + VIP + PgBouncer) on
    /// fresh hosts: leader, streaming replicas, data through the VIP, TLS everywhere, a full backup; the second
    /// deploy changes nothing; parameter changes applied (restarts one member at a time, the leader last); failover
    /// and rejoin; a partition loses no acknowledged row.
    func deployAndFailOver(_ cluster: LabClusterInventory) async throws {
        let inventory = cluster.path
        let events = inventory + ".events"
        let first = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(first.status == 0, "\(first)")
        #expect(try restarted(events).isEmpty, "a new cluster starts with its parameters: \(first)")
        let secrets = try FileManager.default.attributesOfItem(atPath: cluster.directory + "/.keel-secrets.yml")
        #expect((secrets[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // postgres reads Patroni's files but can replace none; the REST API credentials root feeds to curl are root's.
        let owners = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h2", "--",
            "stat -c '%U:%G:%a %n' /etc/patroni /etc/patroni/patroni.yml /etc/keel /etc/keel/patroni-api.curlrc"
                + " /etc/patroni/tls/server.key /etc/patroni/tls/api /etc/patroni/tls/api/client.key /etc/etcd/tls"
                + " /etc/etcd/tls/server.key;"
                + " runuser -u postgres -- sh -c 'echo x > /etc/patroni/x' 2>/dev/null || echo refused",
        ])
        #expect(
            owners.output.contains(
                "root:postgres:750 /etc/patroni\nroot:postgres:640 /etc/patroni/patroni.yml\nroot:root:700 /etc/keel\n"
                    + "root:root:600 /etc/keel/patroni-api.curlrc\npostgres:postgres:600 /etc/patroni/tls/server.key\n"
                    + "root:postgres:750 /etc/patroni/tls/api\npostgres:postgres:600 /etc/patroni/tls/api/client.key\n"
                    + "root:etcd:750 /etc/etcd/tls\netcd:etcd:600 /etc/etcd/tls/server.key\nrefused"),
            "\(owners)")

        let healthy = try await members(inventory, within: 60) { streamingReplicas($0).count == 2 }
        #expect(healthy.filter { $0["role"] as? String == "leader" }.compactMap { $0["name"] as? String } == ["h1"])
        #expect(streamingReplicas(healthy) == ["h2", "h3"], "\(healthy)")
        #expect(healthy.contains { $0["role"] as? String == "sync_standby" }, "synchronous_mode is on by default")
        let status = try await KeelBinary.run(["status", "-i", inventory])
        #expect(status.output.contains("etcd: 3 of 3 members healthy"), "\(status)")
        #expect(status.status == 0 && status.output.hasSuffix("\nhealthy\n"), "\(status)")
        let statusJSON = try await KeelBinary.run(["status", "-i", inventory, "--json"])
        #expect(
            statusJSON.output.contains(#""endpoint" : "https://10.213.0.11:2379""#),
            "URLs as they are: \(statusJSON)")
        #expect(status.output.contains("backups on h4 (stanza lab): ok, 1 backup(s); last full "), "\(status)")
        let backups = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h4", "--", "runuser -u pgbackrest -- pgbackrest --stanza=lab info",
        ])
        #expect(backups.output.contains("status: ok") && backups.output.contains("full backup: "), "\(backups)")

        let streaming = try await sql(
            inventory, "h1", "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
        #expect(streaming.output.contains("h1 | ok | exit 0\n2\n"), "\(streaming.output)")
        // Members replicate over TLS verified against the cluster's CA, and a plain replication login from a
        // member is rejected by pg_hba before any password is asked.
        let walsenders = try await sql(
            inventory, "h1",
            "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE backend_type = 'walsender' AND ssl"
        )
        #expect(walsenders.output.contains("h1 | ok | exit 0\n2\n"), "walsenders over TLS: \(walsenders.output)")
        let receiver = try await sql(
            inventory, "h2", "SELECT conninfo LIKE '%sslmode=verify-full%' FROM pg_stat_wal_receiver")
        #expect(receiver.output.contains("h2 | ok | exit 0\nt\n"), "h2's walreceiver: \(receiver.output)")
        let plain = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h2", "--",
            "PGPASSWORD=not-the-password psql "
                + "'host=10.213.0.11 user=replicator dbname=replication replication=true sslmode=disable' "
                + "-XAtc IDENTIFY_SYSTEM",
        ])
        #expect(
            plain.status != 0 && plain.output.contains("rejects replication connection")
                && plain.output.contains("no encryption"), "a plain replication login: \(plain)")
        let written = try await appSQL(
            cluster, "10.213.0.100", 5000,
            "CREATE TABLE keel_probe AS SELECT generate_series(1, 1000) AS n; SELECT pg_is_in_recovery()")
        #expect(written.contains("h1 | ok | exit 0\nf\n"), "\(written)")
        var read = ""
        for _ in 0..<20 {
            read = try await appSQL(
                cluster, "10.213.0.100", 5001, "SELECT count(*), pg_is_in_recovery() FROM keel_probe")
            if read.contains("1000|t") { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(read.contains("1000|t"), "read through the VIP's replica port: \(read)")
        let pooled = try await appSQL(cluster, "10.213.0.12", 6432, "SELECT count(*) FROM keel_probe")
        #expect(pooled.contains("\n1000\n"), "read through PgBouncer on h2: \(pooled)")

        // PostgreSQL and PgBouncer serve TLS with the cluster's CA: verify-full works through the VIP (to PgBouncer
        // behind HAProxy), to PgBouncer and to PostgreSQL itself, which sees the session encrypted; a client
        // trusting other CAs only is refused.
        let authority = "/etc/patroni/tls/ca.crt"
        let throughVIP = try await appSQL(cluster, "10.213.0.100", 5000, "SELECT 41 + 1", verifyingWith: authority)
        #expect(throughVIP.contains("h1 | ok | exit 0\n42\n"), "verify-full through VIP:5000: \(throughVIP)")
        let encrypted = try await appSQL(
            cluster, "10.213.0.11", 5432, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            verifyingWith: authority)
        #expect(encrypted.contains("h1 | ok | exit 0\nt\n"), "verify-full to PostgreSQL on h1: \(encrypted)")
        let pooledTLS = try await appSQL(
            cluster, "10.213.0.12", 6432, "SELECT count(*) FROM keel_probe", verifyingWith: authority)
        #expect(pooledTLS.contains("\n1000\n"), "verify-full to PgBouncer on h2: \(pooledTLS)")
        let untrusted = try await appSQL(
            cluster, "10.213.0.100", 5000, "SELECT 1", verifyingWith: "/etc/ssl/certs/ca-certificates.crt")
        #expect(untrusted.contains("certificate verify failed"), "\(untrusted)")
        // Where TLS is required, a client without it is refused: PgBouncer behind the VIP, and PostgreSQL from the
        // network (the lab's hostssl rule); from a balancer, with the CA HAProxy checks with, verify-full works.
        _ = try await remote(
            inventory, "h4",
            "DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends postgresql-client-15 >/dev/null"
        )
        let plainVIP = try await appSQL(cluster, on: "h4", "10.213.0.100", 5000, "SELECT 1", withoutTLS: true)
        #expect(plainVIP.contains("SSL required"), "\(plainVIP)")
        let plainDirect = try await appSQL(cluster, on: "h4", "10.213.0.11", 5432, "SELECT 1", withoutTLS: true)
        #expect(plainDirect.contains("no encryption"), "\(plainDirect)")
        let verifiedDirect = try await appSQL(
            cluster, on: "h4", "10.213.0.11", 5432, "SELECT 41 + 1", verifyingWith: "/etc/haproxy/cluster-ca.crt")
        #expect(verifiedDirect.contains("h4 | ok | exit 0\n42\n"), "\(verifiedDirect)")

        // etcd answers only clients showing a certificate of the cluster's CA, and only over TLS; Patroni's REST API
        // only over TLS, to a client with a certificate of the API clients' CA: not the database's own, which etcd
        // takes, nor the API client's to etcd.
        let authenticated = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h2", "--",
            "tls='--cacert /etc/patroni/tls/ca.crt'; database='--cert /etc/patroni/tls/server.crt "
                + "--key /etc/patroni/tls/server.key'; client='--cert /etc/patroni/tls/api/client.crt "
                + "--key /etc/patroni/tls/api/client.key'; "
                + "curl -s -m 5 $tls https://10.213.0.11:2379/health >/dev/null; echo \"without_certificate=$?\"; "
                + "curl -s -m 5 http://10.213.0.11:2379/health >/dev/null; echo \"plain=$?\"; "
                + "curl -sf -m 5 $tls $client https://10.213.0.11:2379/health >/dev/null; echo \"etcd_api_client=$?\"; "
                + "curl -s -m 5 $tls $database https://10.213.0.11:2379/health; echo; "
                + "curl -s -m 5 http://10.213.0.11:8008/health >/dev/null; echo \"api_plain=$?\"; "
                + "curl -sf -m 5 $tls https://10.213.0.11:8008/config >/dev/null; echo \"api_no_certificate=$?\"; "
                + "curl -sf -m 5 $tls $database https://10.213.0.11:8008/config >/dev/null; echo \"api_database=$?\"; "
                + "curl -s -m 5 -o /dev/null -w 'api_tls=%{http_code}\\n' $tls $client https://10.213.0.11:8008/config",
        ])
        for refused in [
            "without_certificate", "plain", "etcd_api_client", "api_plain", "api_no_certificate", "api_database",
        ] {
            #expect(
                authenticated.output.contains("\(refused)=") && !authenticated.output.contains("\(refused)=0\n"),
                "\(refused): \(authenticated)")
        }
        #expect(
            authenticated.output.contains(#"{"health":"true""#) && authenticated.output.contains("api_tls=200"),
            "\(authenticated)")
        // HAProxy's stats page answers only with the credentials of the secrets file (read here from the balancer's
        // root-only haproxy.cfg, into curl's standard input).
        let stats = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h4", "--",
            "stat -c %a /etc/haproxy/haproxy.cfg; curl -s -o /dev/null -w '%{http_code} ' http://10.213.0.100:7000/; "
                + "curl -s -o /dev/null -w '%{http_code} ' --cacert /etc/haproxy/cluster-ca.crt https://10.213.0.100:7000/; "
                + "awk '$1 == \"stats\" && $2 == \"auth\" { printf \"user = \\\"%s\\\"\\n\", $3 }' /etc/haproxy/haproxy.cfg "
                + "| curl -s -o /dev/null -w '%{http_code}' --cacert /etc/haproxy/cluster-ca.crt -K - https://10.213.0.100:7000/",
        ])
        // Over TLS only, the VIP named by HAProxy's certificate: plain HTTP gets no answer.
        #expect(stats.output.contains("\n600\n000 401 200"), "\(stats)")
        // Patroni's unsafe endpoints want the generated credentials besides a client's certificate.
        let restart =
            "cd /etc/patroni/tls && c='--cacert ca.crt --cert api/client.crt --key api/client.key' && "
            + "curl -s -o /dev/null -w '%{http_code} ' $c -X POST https://10.213.0.11:8008/restart; "
            + "curl -s -o /dev/null -w '%{http_code} ' $c -K /etc/keel/patroni-api.curlrc -X POST -d '{\"schedule\": \"2099-01-01T00:00:00+00:00\"}' https://10.213.0.11:8008/restart; "
            + "curl -s -o /dev/null -w '%{http_code} ' $c -K /etc/keel/patroni-api.curlrc -X DELETE https://10.213.0.11:8008/restart; "
            + "curl -s -o /dev/null -w '%{http_code}' $c https://10.213.0.11:8008/primary"
        let api = try await KeelBinary.run(["exec", "-i", inventory, "--limit", "h2", "--", restart])
        #expect(
            api.output.contains("\n401 202 200 200"),
            "unauthenticated 401, with the credentials a scheduled restart accepted and cancelled, GET open: \(api)"
        )
        let extensionPresent = try await sql(
            inventory, "h2", "SELECT extname FROM pg_extension WHERE extname = 'pg_stat_statements'", database: "app")
        #expect(extensionPresent.output.contains("pg_stat_statements"))

        let second = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(second.status == 0, "\(second)")
        let noop = try EventStream(path: events)
        #expect(noop.changedPerHost == ["h1": 0, "h2": 0, "h3": 0, "h4": 0, "h5": 0], "\(second)")
        #expect(noop.handlers.isEmpty)

        // postgres (a superuser's COPY … TO PROGRAM) plants a link to a root-only file where Keel writes its
        // known_hosts: --check --diff shows nothing of the target, the deploy replaces the link as postgres, and
        // the target stays as it was.
        let shadowSum = try await remote(inventory, "h2", "sha256sum < /etc/shadow; stat -c '%U:%a' /etc/shadow")
        _ = try await remote(
            inventory, "h2", "runuser -u postgres -- ln -sfn /etc/shadow /var/lib/postgresql/.ssh/known_hosts")
        let planted = try await KeelBinary.run(["deploy", "-i", inventory, "--check", "--diff"])
        #expect(planted.status == 2, "\(planted)")
        #expect(!planted.output.contains("root:"), "--check --diff prints the link's target: \(planted)")
        let replaced = try await KeelBinary.run(["deploy", "-i", inventory])
        #expect(replaced.status == 0, "\(replaced)")
        let afterLink = try await remote(
            inventory, "h2",
            "sha256sum < /etc/shadow; stat -c '%U:%a' /etc/shadow; stat -c '%F %U' /var/lib/postgresql/.ssh/known_hosts"
        )
        #expect(afterLink == shadowSum + ["regular file postgres"], "\(afterLink)")

        // A lost secrets file must not lead to new passwords for a running cluster.
        let secretsFile = cluster.directory + "/.keel-secrets.yml"
        try FileManager.default.moveItem(atPath: secretsFile, toPath: secretsFile + ".kept")
        let withoutSecrets = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        let changedWithoutSecrets = try EventStream(path: events).changedSteps
        #expect(!FileManager.default.fileExists(atPath: secretsFile), "the refused run leaves no new passwords behind")
        try? FileManager.default.removeItem(atPath: secretsFile)
        try FileManager.default.moveItem(atPath: secretsFile + ".kept", toPath: secretsFile)
        #expect(withoutSecrets.status != 0 && changedWithoutSecrets.isEmpty)
        // Every password the running cluster uses is named, not only the superuser's.
        #expect(
            withoutSecrets.output.contains(
                "already uses patroni_replication_password, patroni_restapi_password, patroni_superuser_password, "
                    + "tls_ca_key, user_app, but .keel-secrets.yml")
                && withoutSecrets.output.contains("already uses vrrp_auth_pass, but"),
            "\(withoutSecrets)")

        // A changed variable: --check shows exactly that change, the deploy applies it without a restart. Every
        // parameter is in patroni.yml's bootstrap too (a new cluster starts with it): that file changes on each
        // member, and Patroni reloads it, but only the cluster's configuration applies it.
        let parameterChange = Set(["h1", "h2", "h3"].map { "\($0): template /etc/patroni/patroni.yml" })
            .union(["h1: patroni cluster configuration"])
        let variables = cluster.directory + "/group_vars/all.yml"
        func setVariables(_ old: String, _ new: String) throws {
            try String(contentsOfFile: variables, encoding: .utf8).replacingOccurrences(of: old, with: new)
                .write(toFile: variables, atomically: true, encoding: .utf8)
        }
        try setVariables(#"value: "8MB""#, #"value: "16MB""#)
        let plan = try await KeelBinary.run(["deploy", "-i", inventory, "--check", "--events", events])
        #expect(plan.status == 2, "\(plan)")
        #expect(Set(try EventStream(path: events).changedSteps) == parameterChange, "\(plan)")
        #expect(plan.output.contains("- work_mem: 8MB → 16MB\n"), "\(plan)")
        let applied = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(applied.status == 0, "\(applied)")
        #expect(Set(try EventStream(path: events).changedSteps) == parameterChange, "\(applied)")
        var workMem = ""
        for _ in 0..<20 {
            workMem = try await sql(inventory, "h2", "SHOW work_mem").output
            if workMem.contains("\n16MB\n") { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(workMem.contains("\n16MB\n"), "\(workMem)")

        // A dotted (extension) parameter is applied under its whole name and verified; removing it converges.
        let workMemLine = #"  - { option: "work_mem", value: "16MB" }"#
        let dottedLine = #"  - { option: "pg_stat_statements.track", value: "all" }"#
        try setVariables(workMemLine, workMemLine + "\n" + dottedLine)
        for (applied, summary) in [(true, "- pg_stat_statements.track: (unset) → all\n"), (false, "→ (removed)\n")] {
            let dotted = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
            #expect(dotted.status == 0 && dotted.output.contains(summary), "\(dotted)")
            #expect(Set(try EventStream(path: events).changedSteps) == parameterChange, "\(dotted)")
            var shown = ""
            for _ in 0..<20 {
                shown = try await sql(
                    inventory, "h2",
                    "SELECT 'track=' || coalesce(current_setting('pg_stat_statements.track', true), '')"
                ).output
                if shown.contains("\ntrack=all\n") == applied && shown.contains("\ntrack=") { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(shown.contains("\ntrack=all\n") == applied, "pg_stat_statements.track on h2: \(shown)")
            let again = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
            let changedAgain = try EventStream(path: events).changedSteps
            #expect(again.status == 0 && changedAgain.isEmpty, "\(again)")
            try setVariables(workMemLine + "\n" + dottedLine, workMemLine)
        }

        // A parameter PostgreSQL applies only at start: the members restart one at a time, the leader last.
        try setVariables(#"value: "200""#, #"value: "300""#)
        let restarted = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(restarted.status == 0, "\(restarted)")
        #expect(
            restarted.output.contains("- restart h2 (") && restarted.output.contains("- restart h3 (")
                && restarted.output.contains("- restart h1 (leader)"))
        let starts = try await KeelBinary.run([
            "exec", "-i", inventory, "--limit", "h1,h2,h3", "--",
            "cd /tmp && runuser -u postgres -- psql -XAtq -c \"SELECT current_setting('max_connections') || ' ' || extract(epoch FROM pg_postmaster_start_time())\"",
        ])
        var started: [String: Double] = [:]
        for host in ["h1", "h2", "h3"] {
            let line =
                starts.output.components(separatedBy: "\(host) | ok | exit 0\n").dropFirst().first?.split(
                    separator: "\n"
                ).first ?? ""
            let fields = line.split(separator: " ")
            #expect(fields.first == "300", "max_connections on \(host): \(starts)")
            started[host] = fields.count == 2 ? Double(fields[1]) : nil
        }
        #expect(
            started["h1"] ?? 0 > max(started["h2"] ?? .infinity, started["h3"] ?? .infinity),
            "the leader restarts last: \(started)")
        #expect(status.output.contains("vip: 10.213.0.100 held by h"), "\(status)")

        // Failover: the leader's host loses power; a replica takes over and the VIP's primary port works again.
        try await Lab.run("kill", "h1")
        let failedOver = try await members(inventory, within: 90) { members in
            members.contains { ["h2", "h3"].contains($0["name"] as? String) && $0["role"] as? String == "leader" }
        }
        #expect(
            failedOver.contains { ["h2", "h3"].contains($0["name"] as? String) && $0["role"] as? String == "leader" },
            "\(failedOver)")
        var afterFailover = ""
        for _ in 0..<30 {
            afterFailover = try await appSQL(
                cluster, on: "h2", "10.213.0.100", 5000,
                "INSERT INTO keel_probe VALUES (1001); SELECT count(*) FROM keel_probe")
            if afterFailover.contains("\n1001\n") { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(afterFailover.contains("\n1001\n"), "write through the VIP after failover: \(afterFailover)")

        // The old leader boots again and rejoins as a replica; a deploy then changes nothing.
        try await Lab.run("start", "h1")
        let rejoined = try await members(inventory, within: 120) { streamingReplicas($0).contains("h1") }
        #expect(streamingReplicas(rejoined).contains("h1"), "\(rejoined)")
        let third = try await KeelBinary.run(["deploy", "-i", inventory, "--events", events])
        #expect(third.status == 0, "\(third)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(third)")

        try await partitionKeepsAcknowledgedRows(cluster)
    }
}
