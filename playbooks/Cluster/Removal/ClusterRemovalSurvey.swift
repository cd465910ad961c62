import Foundation
import Keel

/// What removing the cluster would take away, read from the hosts before the plan is shown: each host's files and
/// directories that exist (with their size), the backups kept or deleted, and the other clusters that use the same
/// etcd (which then stays).
public struct ClusterRemovalSurvey: Sendable {
    public struct Entry: Sendable, Equatable {
        public var path: String
        public var size: String
    }

    /// Per host, the paths removal deletes that exist there.
    public var paths: [String: [Entry]] = [:]
    /// Hosts that could not be read, and why.
    public var unread: [String: String] = [:]
    /// Each member's PostgreSQL system identifier (from its data directory), which the plan shows.
    public var systemIDs: [String: String] = [:]
    public var backups: BackupStatus?
    /// The size of the stanza's WAL archive in the repository.
    public var archiveSize: String?
    /// The other users of the same etcd: another Patroni cluster's name, or the prefix (`/app/`) of any other keys.
    public var otherClusters: [String] = []
    /// etcd goes too: asked, or no other cluster keeps keys in it, or an earlier run of this removal began it.
    public var removesEtcd = true
    /// An earlier run of this removal marked etcd for removal and may have stopped it.
    public var etcdRemovalBegun = false

    public init() {}

    /// The paths removal deletes on `host`: the model's data directory and every file Keel wrote for the cluster,
    /// credentials and keys included (the kept repository's configuration and backups stay unless they go too;
    /// no key to reach them does).
    static func paths(on host: String, _ model: ClusterModel, removingEtcd: Bool, deletingBackups: Bool) -> [String] {
        var paths = [UnattendedUpgradesHold.path]
        if model.databaseHosts.contains(host) {
            paths += [
                model.dataDirectory, "/etc/patroni", "/var/lib/keel", RestoreRecovery.log,
                PatroniAPI.credentialsDirectory, PatroniNodeRole.pgpass,
            ]
            paths += PgBouncerRole.footprint
            if model.vip?.placement == .leader { paths += [PatroniNodeRole.vipSudoers, PatroniNodeRole.vipHelper] }
            if model.backups?.repositoryHost != nil || deletingBackups {
                paths.append(PgBackRestPlays.configuration)
            }
            if model.backups?.repositoryHost != nil {
                paths += SSHTrust.Files(in: ClusterModel.postgresHome).all + [SSHTrust.command]
            }
        } else {
            // Not a member, whose /var/lib/keel goes whole: the record of an update there.
            paths.append(JournalRecord.path(UpdateJournal.flow))
        }
        if removingEtcd && model.etcdHosts.contains(host) {
            paths += EtcdRole.footprint(model)
        }
        if model.balancerHosts.contains(host) {
            paths += KeepalivedRole.footprint + HAProxyRole.footprint
        }
        if model.balancerPoolers.contains(host) { paths += PgBouncerRole.footprint + [TLSFiles.pgbouncer.directory] }
        if let backups = model.backups, host == backups.repositoryHost, backups.repositoryHost != nil {
            paths +=
                SSHTrust.Files(in: SSHTrust.repositoryHome).all + [
                    SSHTrust.command, JournalRecord.path(RestoreProgress.flow),
                ]
            if deletingBackups { paths.append(PgBackRestPlays.configuration) }
        }
        return paths
    }

    /// Who else keeps `keys` in the cluster's etcd: every key outside the cluster's own prefix counts, a Patroni
    /// cluster named by its scope, anything else by its first path segment.
    static func otherUsers(ofKeys keys: [String], _ model: ClusterModel) -> [String] {
        Array(
            Set(
                keys.filter { !$0.isEmpty && !$0.hasPrefix(model.dcsPrefix) }.map { key in
                    let parts = key.split(separator: "/", omittingEmptySubsequences: false)
                    if parts.count > 3, parts[0].isEmpty, parts[1] == "service" { return String(parts[2]) }
                    return parts.count > 2 && parts[0].isEmpty ? "/\(parts[1])/" : key
                })
        ).sorted()
    }

    /// Reads the hosts: first the clusters in etcd, which decide whether etcd goes (`removeEtcd` forces it).
    public static func read(
        _ model: ClusterModel, removeEtcd: Bool, deletingBackups: Bool, inventory: Inventory, fleet: Fleet
    ) async throws -> ClusterRemovalSurvey {
        var survey = ClusterRemovalSurvey()
        // Read through the etcd member's own certificate, which stays while etcd does; where etcd's data is
        // gone, no cluster uses it. An etcd that exists but does not answer stops the removal (it cannot tell
        // whether another cluster would lose its store) unless this removal already marked it for removal.
        let etcdHost = model.etcdHosts[0]
        let etcdctl = Etcdctl(model, member: model.address(of: etcdHost))
        let begun = "keel-removal-begun"
        let read = await fleet.run([try inventory.target(for: etcdHost)]) { _, transport in
            let read: ShellCommand =
                "[ -d \(EtcdBootstrap.dataDirectory) ] || exit 0; "
                + "[ -e \(EtcdRemovalMarked.path(model)) ] && { echo \(begun); exit 0; }; "
                + etcdctl("--dial-timeout=2s get '' --prefix --keys-only")
            return try await transport.run(read.text, timeout: .seconds(15))
        }[0]
        switch read {
        case .done(let result, _) where result.succeeded:
            survey.etcdRemovalBegun = result.stdoutText.split(separator: "\n").contains { $0 == begun }
            survey.otherClusters = otherUsers(
                ofKeys: result.stdoutText.split(separator: "\n").map(String.init).filter { $0 != begun }, model)
        case .done(let result, _):
            throw FlowError(
                "etcd on \(etcdHost) did not list its clusters: \(result.stderrText)",
                hint: "start etcd (or fix it) first: the removal must know whether another cluster uses it")
        case .unreachable(let error), .failed(let error):
            throw FlowError(
                "\(etcdHost) could not be read: \(error)",
                hint: "the removal must know whether another cluster uses its etcd")
        }
        survey.removesEtcd = removeEtcd || survey.etcdRemovalBegun || survey.otherClusters.isEmpty
        let removingEtcd = survey.removesEtcd
        let hosts = model.allHosts
        let outcomes = await fleet.run(
            try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { target, transport in
            let paths = Self.paths(
                on: target.name, model, removingEtcd: removingEtcd, deletingBackups: deletingBackups)
            let words = paths.map { path -> ShellCommand in "\(path)" }.joined(separator: " ")
            var read: ShellCommand =
                "for p in \(words); do [ -e \"$p\" ] && echo \"$p $(du -sh \"$p\" 2>/dev/null | cut -f1)\"; done; true"
            if model.databaseHosts.contains(target.name) {
                read = read + "; " + ClusterIdentity.read(model)
            }
            return try await transport.run(read.text, timeout: .seconds(60)).stdoutText
        }
        var identities: [String: ClusterIdentity] = [:]
        for (host, outcome) in zip(hosts, outcomes) {
            switch outcome {
            case .done(let text, _):
                let lines = text.split(separator: "\n")
                survey.paths[host] = lines.compactMap { line in
                    guard line.hasPrefix("/"), let space = line.lastIndex(of: " ") else { return nil }
                    return Entry(path: String(line[..<space]), size: String(line[line.index(after: space)...]))
                }
                if model.databaseHosts.contains(host) { identities[host] = ClusterIdentity(text) }
            case .unreachable(let error), .failed(let error): survey.unread[host] = "\(error)"
            }
        }
        _ = try ClusterIdentity.check(identities, model)
        survey.systemIDs = identities.compactMapValues(\.systemID)
        if let backups = model.backups {
            let host = backups.repositoryHost ?? model.databaseHosts[0]
            let read = await fleet.run([try inventory.target(for: host)]) { _, transport in
                let status = try? await BackupStatus.read(backups, host: host, transport: transport)
                let archive = backups.path + "/archive/" + backups.stanza
                let du: ShellCommand = "du -sh \(archive) 2>/dev/null | cut -f1"
                let size = try await transport.run(du.text, timeout: .seconds(60)).stdoutText
                return (status, size.trimmingCharacters(in: .whitespacesAndNewlines))
            }[0]
            if case .done(let (status, size), _) = read {
                survey.backups = status
                survey.archiveSize = size.isEmpty ? nil : size
            }
        }
        return survey
    }
}
