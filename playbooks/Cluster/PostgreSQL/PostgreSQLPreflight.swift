import Keel

/// Before the first change on a database host: no Debian PostgreSQL cluster other than the one in the cluster's
/// data directory, since Keel stops Debian's `postgresql` service, which would stop it too, and it is not Keel's to
/// take over.
struct PostgreSQLPreflight: PreflightCheck {
    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        guard model.databaseHosts.contains(host) else { return "" }
        // pg_lsclusters (Perl, 70 ms) lists the clusters under /etc/postgresql, none on a member Keel made.
        return "ls -d /etc/postgresql/*/*/ >/dev/null 2>&1 && pg_lsclusters -h 2>/dev/null | "
            + "awk '{print \"debian_cluster=\" $1 \"/\" $2 \" \" $3 \" \" $4 \" \" $6}'"
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        let own = model.dataDirectory.hasSuffix("/") ? String(model.dataDirectory.dropLast()) : model.dataDirectory
        return found.values("debian_cluster").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard fields.count == 4, fields[3] != own, fields[3] != own + "/" else { return nil }
            let (cluster, port, status, data) = (fields[0], fields[1], fields[2], fields[3])
            return
                "another PostgreSQL cluster is set up here: \(cluster) on port \(port) (\(status)), data in \(data); "
                + "Keel would stop it: drop it (pg_dropcluster \(cluster.replacingOccurrences(of: "/", with: " "))) or "
                + "move it elsewhere"
                + (host == model.primaryHost ? ", or set postgresql_data_dir: \(data) to take it over" : "")
        }
    }
}
