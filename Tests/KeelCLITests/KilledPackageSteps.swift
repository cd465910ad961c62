import Foundation
import KeelTestSupport
import Testing

/// Runs killed (SIGKILL) while dpkg works on a host: dpkg goes on to its end there, and the rerun converges.
extension LabTests {
    /// Kills `keel ARGUMENTS` the moment dpkg runs on `host`, then waits until Keel's job there has ended and checks
    /// that dpkg ended whole (nothing for `dpkg --configure -a` to do): the kill did not cut it.
    func killedInDpkg(_ arguments: [String], inventory: String, on host: String) async throws {
        let unkilled = try await deployKilled(arguments) { [self] _ in
            try await remote(inventory, host, "pgrep -x dpkg >/dev/null && echo dpkg || true") == ["dpkg"]
        }
        #expect(unkilled == nil, "keel ended before dpkg ran on \(host):\n\(unkilled ?? "")")
        let settled = try await remote(
            inventory, host,
            "for i in $(seq 600); do systemctl list-units --plain --no-legend 'keel-job-*' | grep -q . || break; "
                + "sleep 1; done; ls /var/lib/dpkg/updates | wc -l; dpkg --audit | wc -l")
        #expect(settled == ["0", "0"], "dpkg on \(host) ended whole after the kill (journal, audit): \(settled)")
    }

    /// add-node killed inside dpkg on the new member h6, without sessions kept (its connection dropped) and then
    /// with them (the keeper ends what the run started): each time dpkg finishes on h6 by itself. Meanwhile the
    /// half-added h6 stops a restore before it changes anything (every member's Patroni still running), and keel
    /// status names it. The add-node run after this (``deployThenDayTwo``) converges.
    func addNodeKilledInDpkg(_ cluster: LabClusterInventory, writerHost: String) async throws {
        let inventory = cluster.path
        let addNode = ["add-node", "-i", inventory]
        try await killedInDpkg(addNode + ["--keep-connections", "0"], inventory: inventory, on: "h6")

        let target = try #require(
            try await remote(
                inventory, writerHost,
                "PGPASSWORD='\(try cluster.secret("user_app"))' psql -h 10.213.0.100 -p 5000 -U app -d app -XAtq -c 'SELECT now()'"
            ).first)
        let restore = try await KeelBinary.run([
            "restore", "-i", inventory, "--target-time", target, "--confirm", "lab",
        ])
        #expect(
            restore.status != 0 && restore.output.contains("h6 cannot take its steps")
                && restore.output.contains("Patroni is not installed")
                && restore.output.contains("keel add-node"), "\(restore)")
        for host in ["h1", "h2", "h3"] {
            let patroni = try await remote(inventory, host, "systemctl is-active patroni pgbouncer || true")
            #expect(patroni == ["active", "active"], "nothing stopped on \(host): \(patroni)")
        }
        let status = try await KeelBinary.run(["status", "-i", inventory])
        #expect(
            status.status == 1
                && status.output.contains("h6 does not answer (Patroni is not installed (a half-added member)"),
            "\(status)")

        // Once more, with the keeper: PostgreSQL's packages taken off h6 so that dpkg has work again.
        _ = try await remote(
            inventory, "h6",
            "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=600 postgresql-15 >/dev/null && echo purged"
        )
        try await killedInDpkg(addNode, inventory: inventory, on: "h6")
    }
}
