import Foundation
import KeelTestSupport
import Testing

extension LabTests {
    @Test(
        "Type B (no HAProxy): three hosts, h3 reached only through h1 as its jump host (ProxyJump in ansible_ssh_common_args), PostgreSQL 13 from a PGDG mirror, the VIP follows the Patroni leader, writes go through it; backups in a directory the hosts share, refused where it is not shared; a new REST API password restarts one member at a time; keel upgrade to 15 under a writer (refused cases, the plan; killed during pg_upgrade and rolled back to 13; keeping h3, killed after the new leader started and rerun, then rolled back to 13 from h3, losing only the rows written on 15; keeping h1, then --finish: every member on 15, every acknowledged row everywhere, a backup of 15, deploy on 15 changes nothing)",
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
        // An older major release than Debian 12's, to upgrade from at the end.
        try await cluster.onPostgreSQL13()
        let variablesPath = cluster.directory + "/group_vars/all.yml"
        let variables = try String(contentsOfFile: variablesPath, encoding: .utf8)
        func useRepository(_ path: String) throws {
            try variables.replacingOccurrences(
                of: "pgbackrest_install: false", with: "pgbackrest_install: true\npgbackrest_repo_path: \(path)"
            )
            .write(toFile: variablesPath, atomically: true, encoding: .utf8)
        }

        // A directory each host has for itself is not a shared repository: refused before Patroni starts.
        _ = try await KeelBinary.run(["exec", "-i", cluster.path, "--", "mkdir -p /srv/local-only"])
        try useRepository("/srv/local-only")
        // At a terminal, as a person runs it: the packages' step shows what apt printed last in its live line.
        let local = try await KeelBinary.runOnTerminal(["deploy", "-i", cluster.path])
        let localScreen = local.screen
        #expect(local.status != 0)
        #expect(
            localScreen.contains(
                "/srv/local-only on h1 is not the directory the other database hosts see: the marks of h2, h3 are missing here"
            ), "\(local)")
        #expect(!localScreen.contains("PLAY patroni primary"), "\(local)")
        let printed = localScreen.split(separator: "\n").filter {
            $0.contains(" | running | package ") && $0.contains(" s  ▸ ")
        }
        #expect(
            printed.contains { line in ["Get:", "Unpacking ", "Setting up "].contains { line.contains($0) } },
            "apt's progress in a live line: \(printed)")

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
        let screen = deploy.screen
        let live = screen.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains(" | running | "),
                let seconds = line.split(separator: " … ").last?.split(separator: " ").first
            else { return nil }
            return Int(seconds)
        }
        // A live line starts at 0 s: one that shows 4 s or more was redrawn as it ran (ci10: its longest step, 5 s).
        #expect(
            deploy.output.contains("\u{1B}[J") && (live.max() ?? 0) > 3 && screen.contains("\nRECAP\n"),
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
            "\(Self.patroniCurl) -s -o /dev/null -w '%{http_code} ' -u patroni:Rotated-api-1 -X POST -d '{\"schedule\": \"2099-01-01T00:00:00+00:00\"}' https://10.213.0.12:8008/restart; "
                + "\(Self.patroniCurl) -s -o /dev/null -w '%{http_code}' -K /etc/keel/patroni-api.curlrc -X DELETE https://10.213.0.12:8008/restart",
        ])
        #expect(api.output.contains("\n202 200"), "Patroni and Keel both use the new password: \(api)")
        let healthy = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            healthy.filter { $0["role"] as? String == "leader" }.count == 1 && streamingReplicas(healthy).count == 2,
            "\(healthy)")
        try await upgradeUnderLoad(cluster, leader: "h1")
    }

    /// keel upgrade from 13 to 15 under a writer through the VIP (on the leader): refused cases and the plan change
    /// nothing; a run killed while pg_upgrade runs on the leader is rolled back to 13 as it was; the next run,
    /// killed after the new leader started, is rerun and completes: every member on 15, one leader and two
    /// streaming replicas, every acknowledged row on every member, the repository upgraded with a backup of 15, and
    /// keel deploy on 15 changes nothing.
    private func upgradeUnderLoad(_ cluster: LabClusterInventory, leader: String) async throws {
        let upgrade = ["upgrade", "-i", cluster.path]
        let older = try await KeelBinary.run(upgrade + ["--to", "12", "--check"])
        #expect(
            older.status != 0 && older.output.contains("--to 12 is not newer than the running PostgreSQL 13"),
            "\(older)")
        // Under --check, the plan, and exit 2: changes are pending.
        let plan = try await KeelBinary.run(upgrade + ["--to", "15", "--check"])
        #expect(
            plan.status == 2 && plan.output.contains("upgrade will, on cluster lab (PostgreSQL 13 → 15):")
                && plan.output.contains("THE POINT OF NO RETURN"), "\(plan)")
        let unconfirmed = try await KeelBinary.run(upgrade + ["--to", "15", "--confirm", "other"])
        #expect(unconfirmed.status != 0 && !unconfirmed.output.contains("PLAY "), "\(unconfirmed)")
        let nothing = try await KeelBinary.run(upgrade + ["--rollback", "--confirm", "lab"])
        #expect(nothing.status != 0 && nothing.output.contains("no upgrade is under way"), "\(nothing)")

        _ = try await appSQL(cluster, on: "h2", "10.213.0.100", 5432, "CREATE TABLE acked (id int PRIMARY KEY)")
        try await startWriter(cluster, on: "h2", seconds: 1200, port: 5432)
        try await Task.sleep(for: .seconds(3))
        let run = upgrade + ["--to", "15", "--confirm", "lab"]
        let killedInUpgrade = try await deployKilled(after: "upgrade: a CHECKPOINT", on: leader, run)
        #expect(killedInUpgrade == nil, "the upgrade ended before pg_upgrade: \(killedInUpgrade ?? "")")
        let rollback = try await KeelBinary.run(upgrade + ["--rollback", "--confirm", "lab"])
        #expect(rollback.status == 0 && rollback.output.contains("roll back the unfinished upgrade"), "\(rollback)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(cluster.path, host, "SHOW server_version_num")
            #expect(running.output.contains("\n1300"), "\(host) runs 13 again: \(running)")
        }
        let back = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(
            back.first { $0["role"] as? String == "leader" }?["name"] as? String == leader, "rolled back: \(back)")
        let afterRollback = try await acknowledgedRows(cluster, writtenOn: "h2", port: 5432)
        #expect(afterRollback.missing == 0, "rows lost by the rollback: \(afterRollback)")

        // Kept h3 on 13, killed once the new leader began to start (past the point of no return) and rerun: the
        // cluster runs on 15 without h3, whose 13 ends at the old leader's last checkpoint.
        let keeping = upgrade + ["--to", "15", "--keep-replica", "h3", "--confirm", "lab"]
        let beforeUpgrade = try #require(try await remote(cluster.path, "h2", "date +%s%N").first)
        let started = ContinuousClock.now
        let killedStarted = try await deployKilled(
            after: "upgrade: patroni started on PostgreSQL 15", on: leader, keeping)
        #expect(killedStarted == nil, "the upgrade ended before its new leader: \(killedStarted ?? "")")
        let rerun = try await KeelBinary.run(keeping)
        print("keel upgrade 13 → 15 keeping h3 (killed once, rerun): \(ContinuousClock.now - started)")
        #expect(rerun.status == 0 && rerun.output.contains("It was begun"), "\(rerun)")
        let awaiting = try await KeelBinary.run(["status", "-i", cluster.path])
        #expect(awaiting.output.contains("awaits its end, h3 kept stopped on 13"), "\(awaiting)")
        for (host, version) in [("h1", "\n150"), ("h2", "\n150")] {
            let running = try await sql(cluster.path, host, "SHOW server_version_num")
            #expect(running.output.contains(version), "\(host) runs 15: \(running)")
        }
        let keptDown = try await remote(cluster.path, "h3", "systemctl is-active patroni; pgrep -c postgres || true")
        #expect(keptDown == ["inactive", "0"], "h3 kept stopped: \(keptDown)")

        // Rows written on 15, then back to 13 from h3: those rows are lost, as the plan says; none written before.
        try await Task.sleep(for: .seconds(5))
        let fromKeptRun = try await KeelBinary.run(upgrade + ["--rollback", "--confirm", "lab"])
        #expect(
            fromKeptRun.status == 0 && fromKeptRun.output.contains("EVERY WRITE MADE ON POSTGRESQL 15 IS LOST"),
            "\(fromKeptRun)")
        for host in ["h1", "h2", "h3"] {
            let running = try await sql(cluster.path, host, "SHOW server_version_num")
            #expect(running.output.contains("\n1300"), "\(host) runs 13 again: \(running)")
        }
        let fromKept = try await members(cluster.path, within: 60) { streamingReplicas($0).count == 2 }
        #expect(fromKept.first { $0["role"] as? String == "leader" }?["name"] as? String == "h3", "\(fromKept)")
        let lost = try await remote(
            cluster.path, "h2",
            "export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=5; psql -h 10.213.0.100 -U app "
                + "-d app -XAtqc 'SELECT id FROM acked' | sort > /tmp/present && sort /tmp/acked | comm -23 - /tmp/present "
                + "> /tmp/lost && paste -d ' ' /tmp/acked /tmp/acked.times | sort -k1,1 | join - /tmp/lost | "
                + "awk -v t=\(beforeUpgrade) '$2 < t { early++ } END { print NR, early + 0 }'")
        let counts = (lost.last ?? "").split(separator: " ").compactMap { Int($0) }
        print("rolled back from the kept replica: \(counts.first ?? -1) rows written on 15 lost by design")
        #expect(counts.count == 2 && counts[0] > 0 && counts[1] == 0, "lost rows, and those acked before: \(lost)")

        // Kept h1, straight through, then --finish: h1 cloned on 15.
        let kept = try await KeelBinary.run(upgrade + ["--to", "15", "--keep-replica", "h1", "--confirm", "lab"])
        #expect(kept.status == 0 && kept.output.contains("kept replica stopped"), "\(kept)")
        let finished = try await KeelBinary.run(upgrade + ["--finish", "--confirm", "lab"])
        #expect(finished.status == 0 && finished.output.contains("upgrade --finish will"), "\(finished)")
        let late = try await KeelBinary.run(upgrade + ["--rollback", "--confirm", "lab"])
        #expect(late.status != 0 && late.output.contains("no upgrade is under way"), "\(late)")
        _ = try await remote(
            cluster.path, "h2",
            "touch /tmp/writer.stop; for i in $(seq 30); do [ -f /tmp/writer.done ] && break; sleep 1; done; "
                + "grep -vxFf /tmp/lost /tmp/acked > /tmp/acked.kept")
        let rows = try await acknowledgedRows(cluster, writtenOn: "h2", port: 5432, file: "/tmp/acked.kept")
        let gap = try await remote(
            cluster.path, "h2",
            "awk 'p { d = $1 - p; if (d > m) m = d } { p = $1 } END { printf \"%.2f\\n\", m / 1e9 }' /tmp/acked.times")
        print(
            "upgrade under load: \(rows.acknowledged) rows acknowledged (the lost by design aside), \(rows.missing) missing; longest write gap \(gap.first ?? "?") s"
        )
        #expect(rows.missing == 0 && rows.acknowledged > 100, "\(rows)")
        try await upgradedTo15(cluster, backupsOn: "h3", as: "postgres", rows: [("acked", "h2", "/tmp/acked.kept")])
    }
}
