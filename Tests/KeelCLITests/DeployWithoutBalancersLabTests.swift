import Foundation
import KeelTestSupport
import Testing

extension LabTests {
    @Test(
        "Type B (no HAProxy): three hosts, h3 reached only through h1 as its jump host (ProxyJump in ansible_ssh_common_args), PostgreSQL 13 from a PGDG mirror, the VIP follows the Patroni leader, writes go through it; backups in a directory the hosts share, refused where it is not shared; a new REST API password restarts one member at a time; keel upgrade's first stage to 15 (a refused case, the plan, 15 beside 13 from the mirror, pg_upgrade --check) leaves the running cluster as it was",
        .lab(hosts: 3, fresh: true)
    )
    func deployWithoutBalancers() async throws {
        // This machine cannot reach h3: every keel run below reaches it through h1.
        try await Lab.blocking("h3") { try await deployWithoutBalancersThroughJumpHost() }
    }

    private func deployWithoutBalancersThroughJumpHost() async throws {
        let cluster = try LabClusterInventory(databaseHostsOnly: true)
        let jumped = "h3 ansible_host=10.213.0.13 ansible_ssh_common_args='-o ProxyJump=root@10.213.0.11'\n"
        try String(contentsOfFile: cluster.path, encoding: .utf8)
            .replacingOccurrences(of: "h3 ansible_host=10.213.0.13\n", with: jumped)
            .write(toFile: cluster.path, atomically: true, encoding: .utf8)
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        // PostgreSQL from a PGDG mirror signed with its own key (the lab's stands in for apt.postgresql.org).
        let mirror = try await Lab.run("pgdg").split(separator: "\n").last?.split(separator: " ").map(String.init) ?? []
        try #require(mirror.count == 2, "lab pgdg prints the mirror's URL and key file")
        func useRepository(_ path: String) throws {
            try variables.replacingOccurrences(
                of: "pgbackrest_install: false", with: "pgbackrest_install: true\npgbackrest_repo_path: \(path)"
            )
            // An older major release than Debian 12's, to upgrade from at the end.
            .replacingOccurrences(of: "postgresql_version: 15", with: "postgresql_version: 13")
            .appending(
                "\npgdg_repository: true\npgdg_repository_url: \(mirror[0])\npgdg_repository_key_file: \(mirror[1])\n"
            )
            .write(toFile: variablesPath, atomically: true, encoding: .utf8)
        }

        // A directory each host has for itself is not a shared repository: refused before Patroni starts.
        _ = try await KeelBinary.run(["exec", "-i", cluster.path, "--", "mkdir -p /srv/local-only"])
        try useRepository("/srv/local-only")
        let local = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(local.status != 0)
        #expect(
            local.output.contains(
                "/srv/local-only on h1 is not the directory the other database hosts see: the marks of h2, h3 are missing here"
            ), "\(local)")
        #expect(!local.output.contains("PLAY patroni primary"), "\(local)")

        // The lab's shared directory, as an NFS export would be: the operator made the repository's directory.
        _ = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h1", "--", "mkdir -p /srv/keel-shared/pgbackrest",
        ])
        try useRepository("/srv/keel-shared/pgbackrest")
        let events = cluster.path + ".events"
        // At a terminal, as a person runs it: long steps are live lines at the bottom, redrawn in place.
        let deploy = try await KeelBinary.runOnTerminal(["deploy", "-i", cluster.path, "--events", events])
        #expect(deploy.status == 0, "\(deploy)")
        #expect(try restarted(events).isEmpty, "a new cluster starts with its parameters: \(deploy)")
        let screen = deploy.output.replacingOccurrences(
            of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
        let live = screen.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains(" | running | "),
                let seconds = line.split(separator: " … ").last?.split(separator: " ").first
            else { return nil }
            return Int(seconds)
        }
        #expect(
            deploy.output.contains("\u{1B}[J") && (live.max() ?? 0) > 6 && screen.contains("\nRECAP\n"),
            "live lines counting up (seconds: \(live)), erased and redrawn: \(deploy)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(cluster.path, host, "SHOW server_version_num")
            #expect(running.output.contains("\n1300"), "\(host) runs PostgreSQL 13 from the mirror: \(running)")
        }
        let holder = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--", "ip -4 -o addr show | grep -c ' inet 10.213.0.100/' || true",
        ])
        #expect(holder.output.contains("h1 | ok | exit 0\n1\n"), "the VIP is on the leader: \(holder)")
        #expect(holder.output.contains("h2 | ok | exit 0\n0\n") && holder.output.contains("h3 | ok | exit 0\n0\n"))
        // Root's helper moved it: neither Patroni nor the postmaster holds a capability a superuser could use.
        let capabilities = try await remote(
            cluster.path, "h1",
            "for pid in $(systemctl show -p MainPID --value patroni) $(head -1 /var/lib/postgresql/13/main/postmaster.pid); "
                + "do grep -h -e CapAmb -e CapEff /proc/$pid/status; done")
        #expect(
            capabilities.count == 4 && capabilities.allSatisfy { $0.hasSuffix("\t0000000000000000") }, "\(capabilities)"
        )
        let password = try cluster.secret("user_app")
        let write = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h3", "--",
            "PGPASSWORD=\(password) psql -h 10.213.0.100 -p 5432 -U app -d app -XAtq -c 'CREATE TABLE via_vip AS SELECT 1 AS n; SELECT inet_server_addr()'",
        ])
        #expect(write.output.contains("h3 | ok | exit 0\n10.213.0.100\n"), "\(write)")
        let status = try await KeelBinary.run(["status", "-i", cluster.path])
        #expect(status.output.contains("vip: 10.213.0.100 held by h1"), "\(status)")
        #expect(
            status.output.contains("backups on /srv/keel-shared/pgbackrest (stanza lab): ok, 1 backup(s); last full "),
            "\(status)")

        // The timers fire on every member; only the primary backs up. A replica sees the backup it made.
        _ = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h2", "--", "systemctl start pgbackrest-lab@diff.service",
        ])
        _ = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h1", "--", "systemctl start pgbackrest-lab@diff.service",
        ])
        let info = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h3", "--", "runuser -u postgres -- pgbackrest --stanza=lab info",
        ])
        #expect(
            info.output.contains("full backup: ") && info.output.components(separatedBy: "diff backup: ").count == 2,
            "one diff backup, from h1: \(info)")

        let second = try await KeelBinary.run(["deploy", "-i", cluster.path, "--events", events])
        #expect(second.status == 0, "\(second)")
        #expect(try EventStream(path: events).changedPerHost == ["h1": 0, "h2": 0, "h3": 0], "\(second)")

        // A new REST API password reaches Patroni by a restart of each member in turn, never all at once.
        let rotated =
            try String(contentsOfFile: variablesPath, encoding: .utf8)
            + "\npatroni_restapi_password: \"Rotated-api-1\"\n"
        try rotated.write(toFile: variablesPath, atomically: true, encoding: .utf8)
        let rotation = try await KeelBinary.run(["deploy", "-i", cluster.path])
        #expect(rotation.status == 0, "\(rotation)")
        for host in ["h1", "h2", "h3"] {
            #expect(
                rotation.output.contains("- restart patroni on \(host) and wait until it is in service"),
                "\(rotation)")
        }
        var started: [Double] = []
        for host in ["h1", "h2", "h3"] {
            let start = try await sql(cluster.path, host, "SELECT extract(epoch FROM pg_postmaster_start_time())")
            started += start.output.split(separator: "\n").compactMap { Double($0) }
        }
        let order = started.sorted()
        #expect(
            order.count == 3 && zip(order, order.dropFirst()).allSatisfy { $1 - $0 >= 1 },
            "one member at a time: \(started)")
        let api = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--limit", "h2", "--",
            "cd /etc/patroni/tls && curl -s -o /dev/null -w '%{http_code} ' --cacert ca.crt -u patroni:Rotated-api-1 -X POST -d '{\"schedule\": \"2099-01-01T00:00:00+00:00\"}' https://10.213.0.12:8008/restart; "
                + "curl -s -o /dev/null -w '%{http_code}' --cacert ca.crt -K /etc/keel/patroni-api.curlrc -X DELETE https://10.213.0.12:8008/restart",
        ])
        #expect(api.output.contains("\n202 200"), "Patroni and Keel both use the new password: \(api)")
        let healthy = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            healthy.filter { $0["role"] as? String == "leader" }.count == 1 && streamingReplicas(healthy).count == 2,
            "\(healthy)")
        try await upgradeFirstStage(cluster, leader: "h1")
    }

    /// keel upgrade from 13 to 15, its first stage: a refused case changes nothing, the plan, then 15 beside 13 on
    /// every member (from the mirror), a new cluster and pg_upgrade --check on the leader; the running cluster
    /// still 13, its leader unchanged, taking writes.
    private func upgradeFirstStage(_ cluster: LabClusterInventory, leader: String) async throws {
        let upgrade = ["upgrade", "-i", cluster.path]
        let older = try await KeelBinary.run(upgrade + ["--to", "12", "--check"])
        #expect(
            older.status != 0 && older.output.contains("--to 12 is not newer than the running PostgreSQL 13"),
            "\(older)")
        // Under --check, the plan, and exit 2: changes are pending.
        let plan = try await KeelBinary.run(upgrade + ["--to", "15", "--check"])
        #expect(
            plan.status == 2 && plan.output.contains("upgrade will, on cluster lab (PostgreSQL 13 → 15):"), "\(plan)")
        let unconfirmed = try await KeelBinary.run(upgrade + ["--to", "15", "--confirm", "other"])
        #expect(unconfirmed.status != 0 && !unconfirmed.output.contains("PLAY "), "\(unconfirmed)")

        let first = try await KeelBinary.run(upgrade + ["--to", "15", "--confirm", "lab"])
        #expect(first.status == 0 && first.output.contains("h1 | changed | pg_upgrade --check"), "\(first)")
        let packages = try await KeelBinary.run([
            "exec", "-i", cluster.path, "--", "dpkg-query -W -f '${Version}\\n' postgresql-15 postgresql-client-15",
        ])
        #expect(
            packages.output.components(separatedBy: "+pgdg120+1\n").count - 1 == 6,
            "postgresql-15 and its client from the PGDG mirror on all three hosts: \(packages)")
        let compatible = try await remote(
            cluster.path, leader, "cat /var/lib/postgresql/15/main/PG_VERSION; ls /var/lib/postgresql/15/main | wc -l")
        #expect(compatible.first == "15", "a new cluster for 15 beside 13: \(compatible)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(cluster.path, host, "SHOW server_version_num")
            #expect(running.output.contains("\n1300"), "\(host) still runs 13: \(running)")
        }
        let members = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            members.first { $0["role"] as? String == "leader" }?["name"] as? String == leader,
            "the leader unchanged: \(members)")
    }
}
