import Keel

/// The model's backups: what they are, and how they are read from the inventory (``load(from:secrets:)``).
extension ClusterModel {
    /// pgBackRest: every database host archives WAL to, and is backed up into, one repository that outlives it.
    public struct Backups: Sendable {
        /// Where the repository lives.
        public enum Repository: Sendable {
            /// On a host of its own (not a database host), reached over SSH: its `pgbackrest` user takes the
            /// backups as the database hosts' `postgres`, which archive WAL to it.
            case host(String, databaseKey: SSHKeyPair, repositoryKey: SSHKeyPair)
            /// On one filesystem (NFS, …) mounted at the repository's path on every database host; the primary
            /// takes the backups.
            case shared
        }

        public var repository: Repository
        /// The repository's directory (`pgbackrest_repo_path`), on the repository host or the shared filesystem.
        public var path: String
        public var stanza: String
        public var retentionFull: Int
        /// systemd calendar expressions for the full and the differential backups.
        public var fullSchedule: String
        public var differentialSchedule: String

        /// The repository host, when the repository has one.
        public var repositoryHost: String? {
            if case .host(let host, _, _) = repository { host } else { nil }
        }

        /// The user pgBackRest takes backups as: `pgbackrest` on a repository host, `postgres` on a shared filesystem.
        public var backupUser: String { repositoryHost == nil ? "postgres" : "pgbackrest" }
        /// Left in the repository by remove-cluster when the stanza's backups are kept: no new cluster archives
        /// into a removed one's stanza (its system id differs, and its WAL would mix with the kept backups').
        public var removedClusterMark: String { "\(path)/keel-removed-\(stanza)" }

        /// The command PostgreSQL archives each WAL segment with.
        public var archiveCommand: String { "pgbackrest --stanza=\(stanza) archive-push %p" }
        /// The command a member fetches archived WAL with.
        public var restoreCommand: String { "pgbackrest --stanza=\(stanza) archive-get %f \"%p\"" }
    }

    /// pgBackRest's settings when `pgbackrest_install` is true. The repository host is the `[pgbackrest]` group's
    /// host, or the inventory host `pgbackrest_repo_host` names (by name or address); without one, the repository
    /// is a filesystem every database host shares at `pgbackrest_repo_path` (checked by the deploy).
    static func backups(
        _ reader: VariableReader, inventory: Inventory, cluster: String, databaseHosts: [String],
        secrets: ClusterSecrets
    ) throws(InventoryError) -> Backups? {
        guard try reader.bool(.pgbackrestInstall) ?? false else { return nil }
        let install = reader.origin(.pgbackrestInstall)
        if let type = try reader.string(.pgbackrestRepositoryType), type != "posix" {
            throw InventoryError(
                "pgbackrest_repo_type '\(type)' is not supported", at: reader.origin(.pgbackrestRepositoryType),
                hint:
                    "use posix: a repository host under [pgbackrest], or a filesystem every database host mounts at pgbackrest_repo_path"
            )
        }
        let path = try reader.string(.pgbackrestRepositoryPath, .path) ?? "/var/lib/pgbackrest"
        var repositoryHost = inventory.hostNames(in: "pgbackrest").first
        if let named = try reader.string(.pgbackrestRepositoryHost), !named.isEmpty {
            repositoryHost = inventory.hostNames.first {
                $0 == named || (try? inventory.target(for: $0).address) == named
            }
            guard repositoryHost != nil else {
                throw InventoryError(
                    "pgbackrest_repo_host '\(named)' is not a host of the inventory",
                    at: reader.origin(.pgbackrestRepositoryHost),
                    hint: "list it under [pgbackrest]")
            }
        }
        let repository: Backups.Repository
        if let repositoryHost {
            if databaseHosts.contains(repositoryHost) {
                throw InventoryError(
                    "the pgBackRest repository host \(repositoryHost) is also a database host",
                    at: inventory.groups["pgbackrest"]?.location ?? install,
                    hint: "use a host outside [postgres_cluster]: backups must outlive the database hosts")
            }
            do {
                repository = .host(
                    repositoryHost, databaseKey: try secrets.keyPair(for: "pgbackrest_ssh_key_postgres"),
                    repositoryKey: try secrets.keyPair(for: "pgbackrest_ssh_key_repository"))
            } catch {
                throw InventoryError(
                    "cannot make the pgBackRest SSH keys: \(error)", at: install,
                    hint: "install openssh-client on this machine")
            }
        } else {
            repository = .shared
        }
        return Backups(
            repository: repository, path: path, stanza: try reader.string(.pgbackrestStanza, .name) ?? cluster,
            retentionFull: try reader.int(.pgbackrestRetentionFull, in: 1...1000) ?? 4,
            fullSchedule: try reader.string(.pgbackrestFullSchedule, .line) ?? "Sun *-*-* 06:30",
            differentialSchedule: try reader.string(.pgbackrestDifferentialSchedule, .line) ?? "Mon..Sat *-*-* 06:30")
    }
}
