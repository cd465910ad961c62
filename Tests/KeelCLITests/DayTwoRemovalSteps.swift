import Foundation
import KeelTestSupport
import Testing

/// Guarded removal of the day-2 cluster, then a new cluster on the same hosts: refused without the cluster's name, a
/// neighbouring cluster's keys in etcd kept (and etcd with them), backups kept and the stanza marked, so that the
/// same inventory is refused; with the neighbour gone, run again, etcd goes too (killed midway and run again);
/// postgresql_cluster's own files deploy a new cluster under a new stanza, which archives and backs up and does not
/// restore the removed cluster's backups; removed with its backups, which needs the stanza's name too.
extension LabTests {
    func removalFlows(_ cluster: LabClusterInventory) async throws {
        let inventory = cluster.path
        let databaseHosts = try await members(inventory, within: 1) { _ in true }.compactMap { $0["name"] as? String }
            .sorted()
        let etcdctl =
            "ETCDCTL_API=3 etcdctl --endpoints=https://10.213.0.11:2379 --cacert=/etc/etcd/tls/ca.crt "
            + "--cert=/etc/etcd/tls/server.crt --key=/etc/etcd/tls/server.key"
        _ = try await remote(inventory, "h1", "\(etcdctl) put /service/lab2/config neighbour >/dev/null")
        let remove = ["remove-cluster", "-i", inventory]

        // No confirmation, or a wrong one: nothing changes anywhere.
        for (arguments, reason) in [
            ([], "remove-cluster needs a confirmation"), (["--confirm", "lab2"], "does not name the cluster (lab)"),
            (["--delete-backups", "--confirm", "lab"], "--delete-backups needs a confirmation"),
            // An inventory naming another cluster (lab2, whose keys sit in the same etcd) does not describe these
            // hosts: their Patroni serves lab.
            (
                ["-e", "patroni_cluster_name=lab2", "--confirm", "lab2"],
                "serves the Patroni cluster 'lab' (its patroni.yml)"
            ),
        ] {
            let refused = try await KeelBinary.run(remove + arguments)
            #expect(refused.status != 0 && refused.output.contains(reason), "\(arguments): \(refused)")
        }
        for host in databaseHosts {
            let running = try await remote(
                inventory, host,
                "systemctl is-active patroni; [ -e /var/lib/postgresql/15/main/PG_VERSION ] && echo data")
            #expect(running == ["active", "data"], "\(host) untouched: \(running)")
        }

        let started = ContinuousClock.now
        let removed = try await KeelBinary.run(remove + ["--confirm", "lab"])
        print("remove-cluster took \(ContinuousClock.now - started)")
        #expect(removed.status == 0 && removed.output.contains("backups: KEPT, stanza lab"), "\(removed)")
        #expect(removed.output.contains("etcd stays: it holds the keys of lab2"), "\(removed)")
        #expect(removed.output.contains("its PostgreSQL's system identifier: "), "\(removed)")
        for host in databaseHosts {
            let left = try await remote(
                inventory, host,
                "systemctl is-active patroni pgbouncer; systemctl is-enabled patroni pgbouncer; "
                    + "ls -d /var/lib/postgresql/15/main /etc/patroni 2>/dev/null; true")
            #expect(left == ["inactive", "inactive", "disabled", "disabled"], "\(host): \(left)")
        }
        for host in ["h4", "h5"] {
            let vip = try await remote(
                inventory, host, "systemctl is-active keepalived; ip -4 -o addr | grep -c 10.213.0.100; true")
            #expect(vip == ["inactive", "0"], "\(host) holds no VIP: \(vip)")
        }
        // No key, credential or sudoers entry of Keel's stays, on the members or the kept repository.
        for host in databaseHosts + ["h4"] {
            let credentials = try await remote(
                inventory, host,
                "ls -d /etc/keel /etc/sudoers.d/keel-vip /usr/local/sbin/keel-vip /usr/local/lib/keel/pgbackrest-ssh "
                    + "/var/lib/postgresql/.pgpass_patroni /var/lib/postgresql/.ssh/* /home/pgbackrest/.ssh/* "
                    + "/etc/systemd/system/keepalived.service.d/keel.conf 2>/dev/null; true")
            #expect(credentials.isEmpty, "\(host) keeps Keel's credentials: \(credentials)")
        }
        let keys = try await remote(inventory, "h1", "\(etcdctl) get --prefix /service/ --keys-only | grep .")
        #expect(keys == ["/service/lab2/config"], "only the neighbour's keys stay: \(keys)")
        let pgbackrest = "cd / && runuser -u pgbackrest -- pgbackrest"
        let kept = try await remote(inventory, "h4", "\(pgbackrest) --stanza=lab info | grep -c 'full backup'")
        #expect((Int(kept.first ?? "") ?? 0) > 0, "the stanza keeps its backups: \(kept)")
        let events = inventory + ".events"
        let again = try await KeelBinary.run(remove + ["--confirm", "lab", "--events", events])
        #expect(again.status == 0, "\(again)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(again)")

        // The same inventory again: refused before anything changes (its stanza holds the removed cluster's
        // backups). postgresql_cluster's own files, a new cluster on the same hosts, take its place: their cluster
        // and stanza are named postgres-cluster.
        let refused = try await KeelBinary.run(["deploy", "-i", inventory])
        #expect(
            refused.status != 0 && refused.output.contains("holds the backups of a removed cluster"),
            "\(refused)")
        // With no neighbour left, run again: etcd goes too, killed once the first etcd member stopped (when etcd
        // can no longer tell who uses it); the rerun finishes.
        _ = try await remote(inventory, "h1", "\(etcdctl) del --prefix /service/lab2/ >/dev/null")
        let withEtcd = remove + ["--confirm", "lab"]
        let unkilled = try await deployKilled(after: "service etcd stopped and disabled", on: "h1", withEtcd)
        #expect(unkilled == nil, "the removal ended before etcd stopped on h1:\n\(unkilled ?? "")")
        let finished = try await KeelBinary.run(withEtcd)
        #expect(
            finished.status == 0 && finished.output.contains("an earlier run of this removal began removing it"),
            "\(finished)")
        for host in ["h1", "h2", "h3"] {
            let etcd = try await remote(
                inventory, host,
                "systemctl is-active etcd; systemctl is-enabled etcd; "
                    + "ls -d /var/lib/etcd/default /var/lib/etcd/keel-removing-lab /etc/etcd/tls 2>/dev/null; true")
            #expect(etcd == ["inactive", "disabled"], "etcd gone from \(host): \(etcd)")
        }

        let reference = try await deployReferenceFiles()
        let stanza = ReferenceClusterFiles.name
        let archived = try await remote(
            inventory, "h4",
            "\(pgbackrest) --stanza=\(stanza) check >/dev/null && echo checked; \(pgbackrest) --stanza=lab info | grep -c 'full backup'"
        )
        #expect(archived.first == "checked" && archived.last == kept.first, "\(archived)")
        // The stanza policy: keel restore restores a cluster from its own stanza, not a removed one's.
        let oldSet = try await remote(
            inventory, "h4", "\(pgbackrest) --stanza=lab info | awk '/full backup/ {print $3}' | head -1")
        let foreign = try await KeelBinary.run(
            reference.keel("restore", ["--backup-set", oldSet.first ?? "", "--confirm", stanza]))
        #expect(
            foreign.status != 0 && foreign.output.contains("stanza \(stanza) has no backup set \(oldSet.first ?? "")")
                && foreign.output.contains("restored by hand"), "\(foreign)")

        // Removed with its backups: the stanza's name confirms that too.
        let all = reference.keel(
            "remove-cluster", ["--confirm", stanza, "--delete-backups", "--confirm-backups", stanza])
        let removedAll = try await KeelBinary.run(all)
        #expect(
            removedAll.status == 0 && removedAll.output.contains("backups: DELETE stanza \(stanza)"),
            "\(removedAll)")
        let stanzas = try await remote(inventory, "h4", "ls /var/lib/pgbackrest/backup /var/lib/pgbackrest/archive")
        #expect(!stanzas.contains(stanza) && stanzas.contains("lab"), "\(stanza) deleted, lab kept: \(stanzas)")
        let last = try await KeelBinary.run(all + ["--events", events])
        #expect(last.status == 0, "\(last)")
        #expect(try EventStream(path: events).changedPerHost.values.allSatisfy { $0 == 0 }, "\(last)")
    }
}
