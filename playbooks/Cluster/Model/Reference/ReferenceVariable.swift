import Keel

/// postgresql_cluster's (autobase's) variables that are not Keel settings, and what Keel makes of each, so that its
/// users can bring their `vars/main.yml`, `vars/system.yml` and `vars/Debian.yml` (every release, 1.0.0 on) as they
/// are. The variables Keel honours are ``ClusterVariable``s; every other variable of those files is here.
public enum ReferenceVariable {
    enum Treatment: Equatable {
        /// Keel does the same its own way, told here: any value is accepted.
        case equivalent(String)
        /// Its feature is not part of a Keel cluster, or stays off (the switch that turns it on is itself not
        /// supported yet): any value is accepted.
        case notApplicable(String)
        /// Not supported yet: accepted while it holds postgresql_cluster's published value (docs/deploy.md's
        /// differences say where Keel's cluster differs), refused when set to anything else; says what Keel does.
        case notSupportedYet(String)
    }

    /// What Keel makes of `name`: its own entry, or else that of the reference's file it comes from.
    static func treatment(of name: String) -> Treatment? {
        catalog[name] ?? published[name].flatMap { byFile[$0.file] }
    }

    /// What Keel makes of the reference's cloud variables: servers, buckets and load balancers it would create.
    static let cloudResources = Treatment.notApplicable(
        "cloud resources (servers, buckets, load balancers): Keel deploys onto the inventory's hosts")

    /// What Keel makes of the variables of a whole role's defaults (2026-03 layout), unless a name has an entry.
    private static let byFile: [String: Treatment] = [
        "consul": .notApplicable("Consul: Keel's DCS is etcd (dcs_type)"),
        "cloud_resources": cloudResources,
        "firewall": .notApplicable("the firewall is not managed (firewall_enabled_at_boot)"),
        "upgrade": .notApplicable("pg_upgrade.yml's settings: the major upgrade is not a Keel flow yet"),
        "update": .equivalent(
            "keel update checks the cluster's health and replication itself; --only (or target=postgres) chooses "
                + "the components"),
        "wal_g": .notApplicable("WAL-G: Keel backs up with pgBackRest (wal_g_install)"),
        "etcd": .equivalent("Keel installs Debian's etcd-server package"),
        "packages": .equivalent("Keel installs Debian's packages, or PGDG's with pgdg_repository"),
        "pgbackrest": .equivalent("Keel installs pgBackRest with PostgreSQL: from Debian, or from PGDG"),
        "confd": .equivalent("Keel renders HAProxy's configuration from the model; its checks follow the leader"),
        "vip_manager": .equivalent(
            "Keel holds cluster_vip itself: keepalived on the balancers, or on the leader without HAProxy"),
        "keepalived": .equivalent("Keel configures keepalived for cluster_vip itself"),
    ]

    /// What postgresql_cluster reads from its `vars/Debian.yml` by itself, which its `vars/main.yml` refers to
    /// (`{{ postgresql_log_dir }}`): Debian's layout, which Keel uses too.
    static let debianLayout: [String: Variable] = [
        "postgresql_cluster_name": .string("main"),
        "postgresql_bin_dir": .string("/usr/lib/postgresql/{{ postgresql_version }}/bin"),
        "postgresql_conf_dir": .string("/etc/postgresql/{{ postgresql_version }}/{{ postgresql_cluster_name }}"),
        "postgresql_log_dir": .string("/var/log/postgresql"),
        "postgresql_unix_socket_dir": .string("/var/run/postgresql"),
        "postgresql_home_dir": .string("/var/lib/postgresql"),
        "postgresql_wal_dir": .string(""),
    ].mapValues { Variable($0, at: SourceLocation(file: "Keel's Debian layout", line: 0)) }

    /// What Keel makes of the variable `name` holding `value` (which `reader`, the host's, evaluates), for
    /// `keel inventory --explain`.
    public static func explanation(of name: String, value: InventoryValue, evaluatedBy reader: VariableReader? = nil)
        -> String
    {
        if ClusterVariable(rawValue: name) != nil { return "a Keel setting" }
        if ConnectionVariable.all.contains(name) { return "how Keel connects to the host" }
        if Inventory.magicVariables.contains(name) || Facts.ansibleNames.contains(name) {
            return "Ansible's name for the host or its groups, or a fact of the host"
        }
        switch treatment(of: name) {
        case .equivalent(let how): return "done Keel's way: \(how)"
        case .notApplicable(let why): return "not applicable: \(why)"
        case .notSupportedYet(let instead):
            return isPublished(value, for: name, evaluatedBy: reader)
                ? "postgresql_cluster's value, kept (not supported yet: \(instead))"
                : "REFUSED, not supported yet: \(instead)"
        case nil:
            return ClusterVariable.suggestion(for: name).map { "UNKNOWN (did you mean \($0)?)" }
                ?? "ignored: Keel does not use it (another tool's variable?)"
        }
    }

    /// The names with an entry of their own.
    static var names: Dictionary<String, Treatment>.Keys { catalog.keys }

    /// Every name of the reference's files and of the catalog: a near-miss of one is a typo.
    static var knownNames: Set<String> { Set(catalog.keys).union(published.keys) }

    /// Whether `value` is what postgresql_cluster publishes for `name` (in one of its releases): as written, or as
    /// it comes to once `reader` (the host's) evaluates its Jinja, which is asked only when the text is not
    /// published: the reference's value written another way is the reference's value.
    static func isPublished(_ value: InventoryValue, for name: String, evaluatedBy reader: VariableReader? = nil)
        -> Bool
    {
        guard let values = published[name]?.values else { return false }
        if values.contains(fingerprint(value)) { return true }
        guard let meaning = try? reader?.lookup([name])?.variable.value else { return false }
        return values.contains(fingerprint(meaning))
    }

    /// A variable of the reference's files (``published``).
    struct Published {
        /// The file it comes from, in the newest release that has it: a role's defaults (`common`, `consul`…),
        /// `main`, `system`, `Debian` or `inventory`.
        let file: String
        /// The fingerprints of its values in the releases.
        let values: Set<UInt64>

        init(_ file: String, _ values: Set<UInt64>) {
            self.file = file
            self.values = values
        }
    }

    /// FNV-1a of the value's flow text: the published values are known by these, not copied.
    static func fingerprint(_ value: InventoryValue) -> UInt64 {
        value.description.utf8.reduce(0xcbf2_9ce4_8422_2325) { hash, byte in
            (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
    }

    /// Entries written a treatment and its names at a time; a later entry for a name replaces an earlier one.
    struct Catalog {
        private(set) var entries: [String: Treatment] = [:]

        mutating func add(_ treatment: Treatment, _ names: [String]) {
            for name in names { entries[name] = treatment }
        }
    }
}
