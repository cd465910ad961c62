import Foundation
import Keel
import KeelTestSupport
import Testing

/// A writer through the balancers' PgBouncer (VIP:6432): like the one through VIP:5000, each row its own
/// connection and commit, recorded once acknowledged; but it waits as long as PgBouncer holds a query (60 s, past
/// the longest pause), so that an error means PgBouncer failed it, not that the writer gave up.
extension LabTests {
    /// Starts the writer on `host`, into table `pooled` (created here), its files `/tmp/pooled.*`.
    func startPooledWriter(_ cluster: LabClusterInventory, on host: String) async throws {
        _ = try await appSQL(
            cluster, on: host, "10.213.0.100", 6432, "CREATE TABLE IF NOT EXISTS pooled (id int PRIMARY KEY)")
        let writer = """
            export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=5
            rm -f /tmp/pooled.acked /tmp/pooled.times /tmp/pooled.done /tmp/pooled.stop /tmp/pooled.errors; i=0
            while [ ! -f /tmp/pooled.stop ]; do
                i=$((i + 1))
                if out=$(timeout 60 psql -h 10.213.0.100 -p 6432 -U app -d app -XAtq -c "INSERT INTO pooled VALUES ($i)" 2>&1) && [ -z "$out" ]; then
                    echo "$i" >> /tmp/pooled.acked; date +%s%N >> /tmp/pooled.times
                else
                    echo "$(date +%T) $i $out" >> /tmp/pooled.errors
                    sleep 0.2
                fi
            done
            touch /tmp/pooled.done
            """
        _ = try await remote(
            cluster.path, host,
            "echo \(Data(writer.utf8).base64EncodedString()) | base64 -d > /tmp/pooled.sh; "
                + "setsid nohup bash /tmp/pooled.sh >/dev/null 2>&1 </dev/null &")
    }

    /// Fails the test when the pooled writer on `host` has seen an error so far, naming the step.
    func pooledWriterClean(_ cluster: LabClusterInventory, _ host: String, after step: String) async throws {
        let errors = try await remote(cluster.path, host, "cat /tmp/pooled.errors 2>/dev/null || true")
        let failed = errors.filter { !$0.isEmpty }
        #expect(failed.isEmpty, "the writer through PgBouncer saw errors during \(step): \(failed)")
    }

    /// Stops the pooled writer on `host`; returns how many rows it got acknowledged and how many of those the
    /// leader lacks (read through VIP:5000), and its longest wait between two acknowledged rows.
    func stopPooledWriter(_ cluster: LabClusterInventory, on host: String) async throws -> (
        acknowledged: Int, missing: Int, longestWait: String
    ) {
        let read =
            "touch /tmp/pooled.stop; for i in $(seq 70); do [ -f /tmp/pooled.done ] && break; sleep 1; done; "
            + "export PGPASSWORD='\(try cluster.secret("user_app"))' PGCONNECT_TIMEOUT=5; "
            + "for i in $(seq 60); do timeout 20 psql -h 10.213.0.100 -p 5000 -U app -d app -XAtq "
            + "-c 'SELECT id FROM pooled' > /tmp/pooled.present 2>/dev/null && break; sleep 1; done; "
            + "wc -l < /tmp/pooled.acked; sort /tmp/pooled.acked | comm -23 - <(sort /tmp/pooled.present) | wc -l; "
            + "awk 'p { d = $1 - p; if (d > m) m = d } { p = $1 } END { printf \"%.2f\\n\", m / 1e9 }' /tmp/pooled.times"
        let lines = try await remote(cluster.path, host, "bash -c \(shellQuote(read))")
        try #require(lines.count >= 3, "the pooled writer's rows could not be read: \(lines)")
        return (
            Int(lines[0].trimmingCharacters(in: .whitespaces)) ?? -1,
            Int(lines[1].trimmingCharacters(in: .whitespaces)) ?? -1, lines[2]
        )
    }
}
