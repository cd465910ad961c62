import Keel

/// How members reach each other's PostgreSQL: the replication and rewind logins, over TLS verified against the
/// cluster's CA when the cluster has TLS (each member's certificate names its address), so that an active
/// attacker on the network can neither read the stream nor take the passwords.
///
/// A run that takes a running cluster over from another Patroni (`keel_upgrade_patroni`) cannot verify the members
/// it has not reached yet (they serve no certificate of the cluster's CA, or no TLS at all), so it uses TLS where
/// they offer it (`prefer`); the next run, without that setting, verifies every member.
extension ClusterModel {
    /// libpq's `sslmode` between members; nil without TLS.
    var memberSSLMode: String? {
        guard tls != nil else { return nil }
        return patroni.upgrade ? "prefer" : "verify-full"
    }

    /// libpq's connection string to `address` as `user`, every value quoted.
    func memberConnection(to address: String, user: String, database: String) -> String {
        var parts = [
            "host=\(conninfoQuote(address))", "port=\(postgresPort)", "user=\(conninfoQuote(user))",
            "dbname=\(conninfoQuote(database))",
        ]
        if let mode = memberSSLMode {
            parts += ["sslmode=\(mode)", "sslrootcert=\(conninfoQuote(TLSFiles.patroni.authority))"]
        }
        return parts.joined(separator: " ")
    }

    /// The pg_hba lines Patroni writes on every member, then the inventory's own: replication from the members
    /// only over TLS when the cluster has it (a plain replication login is rejected first, whatever the
    /// inventory's lines allow), and the balancers' PgBouncers.
    var memberHBA: [String] {
        let replication = "\"\(logins.replication.name)\""
        let memberType = tls == nil ? "host" : "hostssl"
        // The exporters' role logs in over the socket with its password (the exporter runs as prometheus).
        var lines = monitoring.map { ["local all \"\($0.role)\" scram-sha-256"] } ?? []
        lines += [
            "local all all peer", "host all all 127.0.0.1/32 scram-sha-256",
            "host replication \(replication) 127.0.0.1/32 scram-sha-256",
        ]
        if tls != nil { lines.append("hostnossl replication all all reject") }
        for member in databaseHosts.map(address(of:)) {
            lines += [
                "\(memberType) replication \(replication) \(member)/32 scram-sha-256",
                "host all all \(member)/32 scram-sha-256",
            ]
        }
        // The balancers' PgBouncers, through their HAProxy (which connects from the balancer's address).
        for pooler in balancerPoolers.map(address(of:)) {
            lines.append("\(memberType) all all \(pooler)/32 scram-sha-256")
        }
        return lines
            + hbaRules.map {
                [$0.type, $0.database, $0.user, $0.address, $0.method].filter { !$0.isEmpty }.joined(separator: " ")
            }
    }

    /// Patroni's `authentication` logins: each one's role and name and, with TLS, its `sslmode` against the
    /// cluster's CA; the passwords come from patroni.env.
    var patroniLogins: [TemplateValue] {
        [("superuser", logins.superuser.name), ("replication", logins.replication.name)].map { role, name in
            .map(["role": .string(role), "name": .string(name), "sslmode": .string(memberSSLMode ?? "")])
        }
    }
}
