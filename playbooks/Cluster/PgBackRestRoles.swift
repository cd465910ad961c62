import Keel
import KeelSSH

/// pgBackRest on a database host. With a repository host: WAL archived to it over SSH as `pgbackrest` with this
/// host's `postgres` key, the repository's host keys pinned. With a shared repository: WAL archived into the shared
/// directory, this member's mark left in it (see ``SharedRepositoryCheck``), and timers that back up from the
/// primary.
struct PgBackRestDatabaseRole {
    let host: HostContext
    let model: ClusterModel
    let backups: ClusterModel.Backups

    @StepBuilder func steps() throws -> [Step] {
        Package("pgbackrest")
        switch backups.repository {
        case .host(let repositoryHost, let databaseKey, let repositoryKey):
            try SSHTrust(
                user: "postgres", home: "/var/lib/postgresql", key: databaseKey, accepting: repositoryKey,
                from: [repositoryHost], host: host, model: model)
        case .shared:
            Directory(backups.path, mode: 0o750, owner: "postgres", group: "postgres")
            SharedRepositoryMark(path: backups.path, host: host.name)
        }
        Directory("/var/log/pgbackrest", mode: 0o750, owner: "postgres", group: "postgres")
        Directory("/etc/pgbackrest")
        Template("cluster/pgbackrest-database.conf", to: "/etc/pgbackrest/pgbackrest.conf", mode: 0o640, group: "postgres", values: [
            "cluster": .string(model.name), "member": .string(host.name), "stanza": .string(backups.stanza),
            "repository_host": .string(backups.repositoryHost ?? ""),
            "repository_address": .string(backups.repositoryHost.map(model.address(of:)) ?? ""),
            "path": .string(backups.path), "retention_full": .int(backups.retentionFull),
            "data_dir": .string(model.dataDirectory), "port": .int(model.postgresPort),
        ])
        if backups.repositoryHost == nil {
            // Every member has the timers; only the one that is the primary when they fire backs up.
            PgBackRestTimers(backups: backups, onlyIf: PatroniAPI(model, member: host.name).isPrimary)
        }
    }
}

/// The pgBackRest repository host: the repository, the `pgbackrest` user that reaches every database host as
/// `postgres`, and timers for the full and differential backups.
struct PgBackRestRepositoryRole {
    let host: HostContext
    let model: ClusterModel
    let backups: ClusterModel.Backups
    let databaseKey: SSHKeyPair
    let repositoryKey: SSHKeyPair

    @StepBuilder func steps() throws -> [Step] {
        Package("pgbackrest")
        Group("pgbackrest")
        User("pgbackrest", group: "pgbackrest", home: "/home/pgbackrest")
        try SSHTrust(
            user: "pgbackrest", home: "/home/pgbackrest", key: repositoryKey, accepting: databaseKey,
            from: model.databaseHosts, host: host, model: model)
        Directory(backups.path, mode: 0o750, owner: "pgbackrest", group: "pgbackrest")
        Directory("/var/log/pgbackrest", mode: 0o750, owner: "pgbackrest", group: "pgbackrest")
        Directory("/etc/pgbackrest")
        Template("cluster/pgbackrest-repository.conf", to: "/etc/pgbackrest/pgbackrest.conf", mode: 0o640, group: "pgbackrest", values: [
            "cluster": .string(model.name), "stanza": .string(backups.stanza), "retention_full": .int(backups.retentionFull),
            "path": .string(backups.path), "data_dir": .string(model.dataDirectory), "port": .int(model.postgresPort),
            "members": .list(model.databaseHosts.map { .map(["address": .string(model.address(of: $0))]) }),
        ])
        PgBackRestTimers(backups: backups, onlyIf: nil)
    }
}

/// systemd timers for the full and the differential backups, run as the backup user; with `condition`, a run is
/// skipped unless that command succeeds when the timer fires.
@StepBuilder func PgBackRestTimers(backups: ClusterModel.Backups, onlyIf condition: String?) -> [Step] {
    Template("cluster/pgbackrest-backup.service", to: "/etc/systemd/system/pgbackrest-\(backups.stanza)@.service", values: [
        "stanza": .string(backups.stanza), "user": .string(backups.backupUser), "condition": .string(condition ?? ""),
    ])
    for (type, schedule) in [("full", backups.fullSchedule), ("diff", backups.differentialSchedule)] {
        Template("cluster/pgbackrest-backup.timer", to: "/etc/systemd/system/pgbackrest-\(backups.stanza)-\(type).timer", values: [
            "stanza": .string(backups.stanza), "type": .string(type), "schedule": .string(schedule),
        ])
        Service("pgbackrest-\(backups.stanza)-\(type).timer", state: .started, enabled: true)
    }
}

/// The stanza and its first full backup, made once the cluster serves: on the repository host, or on the member
/// that is the primary (`onlyIf`) when the repository is shared.
@StepBuilder func PgBackRestFirstBackup(_ backups: ClusterModel.Backups, onlyIf condition: String?) -> [Step] {
    let pgbackrest = "runuser -u \(backups.backupUser) -- pgbackrest --stanza=\(shellQuote(backups.stanza))"
    let elsewhere = condition.map { "! \($0) || " } ?? ""
    Command("\(pgbackrest) stanza-create", unless: "\(elsewhere)[ -e \(backups.path)/backup/\(backups.stanza)/backup.info ]")
    Command("\(pgbackrest) check && \(pgbackrest) --type=full backup", unless: "\(elsewhere)\(pgbackrest) info | grep -q 'full backup:'")
}

/// SSH between cluster hosts for `user`: its private key, the one public key it accepts, and the host keys of
/// the hosts it talks to, taken from those hosts' facts (never trusted on first use).
@StepBuilder func SSHTrust(
    user: String, home: String, key: SSHKeyPair, accepting peerKey: SSHKeyPair, from peers: [String], host: HostContext, model: ClusterModel
) throws -> [Step] {
    let knownHosts = try peers.map { peer in
        guard let keys = host.peers[peer]?.sshHostKeys, !keys.isEmpty else {
            throw ResourceError("the SSH host keys of \(peer) are unknown to this run; run without a --limit that leaves \(peer) out")
        }
        return keys.map { "\(peer),\(model.address(of: peer)) \($0)\n" }.joined()
    }.joined()
    Directory("\(home)/.ssh", mode: 0o700, owner: user, group: user)
    File("\(home)/.ssh/id_ed25519", contents: .secret(key.privateKey), mode: 0o600, owner: user, group: user)
    File("\(home)/.ssh/authorized_keys", content: peerKey.publicKey + "\n", mode: 0o600, owner: user, group: user)
    File("\(home)/.ssh/known_hosts", content: "# Managed by Keel: pinned from the hosts' own keys.\n" + knownHosts, owner: user, group: user)
}
