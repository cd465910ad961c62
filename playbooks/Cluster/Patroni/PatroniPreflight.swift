import Keel

/// Before the first change on a database host: no Patroni older than 3.0.3 already manages PostgreSQL there with
/// etcd v3, unless the inventory lets Keel replace it (`keel_upgrade_patroni`); and Keel's Patroni there runs the
/// release the inventory names (after `keel upgrade`, or during one, a deploy for the old release would point
/// Patroni back at the old data directory).
struct PatroniPreflight: PreflightCheck {
    /// Before this release, an old leader returning from a partition could overwrite the new leader's key in etcd
    /// v3, and the interim leader's acknowledged writes were abandoned.
    static let firstSafeWithEtcd3 = ReleaseNumber(3, 0, 3)

    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        guard model.databaseHosts.contains(host) else { return "" }
        return """
            for p in /usr/bin/patroni /usr/local/bin/patroni; do [ -x "$p" ] && echo "patroni=$("$p" --version 2>/dev/null | awk '{print $2}')"; done
            l=$(readlink \(PatroniNodeRole.binLink)) && v=${l%/bin} && echo "patroni=${v##*/}"
            grep -qs '^etcd3:' /etc/patroni/*.yml /etc/patroni.yml && echo patroni_etcd3=1
            d=$(sed -n "s/^  data_dir: *//p" /etc/patroni/patroni.yml 2>/dev/null | tr -d "\\"'"); [ -n "$d" ] && [ -r "$d/PG_VERSION" ] && echo "patroni_release=$(cat "$d/PG_VERSION") $d"
            """
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        otherRelease(found, model: model) + unsafe(found, model: model)
    }

    /// The release Keel's Patroni runs here, when it is not `postgresql_version`.
    private func otherRelease(_ found: PreflightFindings, model: ClusterModel) -> [String] {
        guard let running = found.value("patroni_release")?.split(separator: " ", maxSplits: 1),
            running.count == 2, let release = Int(running[0]), release != model.postgresVersion
        else { return [] }
        return [
            "Patroni here runs PostgreSQL \(release) (data_dir \(running[1])), the inventory says "
                + "\(model.postgresVersion) (postgresql_version): after keel upgrade, set postgresql_version: \(release); "
                + "while an upgrade is under way, finish it or roll it back first (see keel status)"
        ]
    }

    /// An older Patroni than ``firstSafeWithEtcd3`` with etcd v3, unless Keel may replace it.
    private func unsafe(_ found: PreflightFindings, model: ClusterModel) -> [String] {
        let unsafe = found.values("patroni").filter { ReleaseNumber.isOlder($0, than: Self.firstSafeWithEtcd3) }
        guard let version = unsafe.first, found.contains("patroni_etcd3=1"), !model.patroni.upgrade else { return [] }
        return [
            "Patroni \(version.isEmpty ? "(unknown release)" : version) manages PostgreSQL here with etcd v3: before "
                + "\(Self.firstSafeWithEtcd3) it can lose acknowledged writes after a partition; "
                + "set keel_upgrade_patroni: true to let Keel replace it with Patroni \(model.patroni.version)"
        ]
    }
}
