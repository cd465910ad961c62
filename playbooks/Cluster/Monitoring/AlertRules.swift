import Keel

/// Prometheus alerting rules for the cluster's targets (those ``ScrapeConfigs`` lists, by their `cluster` label),
/// a file an operator loads beside the scrape block: a member down, no leader, a replica lagging past Patroni's
/// failover limit, backups failing or too old, archiving failing, the VIP missing, a disk near full.
public enum AlertRules {
    /// One rule: its name, PromQL expression, how long it must hold, severity and what it says.
    struct Rule {
        let name: String
        let expression: String
        let holding: String
        let severity: String
        let summary: String
    }

    public static func yaml(_ model: ClusterModel) -> String {
        guard model.monitoring != nil else { return "" }
        var text = "# Alerts for cluster \(model.name), on the targets `keel monitoring-targets` prints.\ngroups:\n"
        text += "  - name: \(yamlQuote("keel-\(model.name)"))\n    rules:\n"
        for rule in rules(model) {
            text += "      - alert: \(rule.name)\n"
            text += "        expr: \(yamlQuote(rule.expression))\n"
            text += "        for: \(rule.holding)\n"
            text += "        labels: {severity: \(rule.severity)}\n"
            text += "        annotations: {summary: \(yamlQuote(rule.summary))}\n"
        }
        return text
    }

    static func rules(_ model: ClusterModel) -> [Rule] {
        let cluster = "cluster=\(promQLString(model.name))"
        let job = { (exporter: MonitoringTarget.Exporter) in "job=\(promQLString("\(model.name)-\(exporter.rawValue)"))"
        }
        var rules = [
            Rule(
                name: "KeelMemberDown",
                expression: "up{\(cluster), job=~\(promQLString("\(model.name)-(patroni|postgres)"))} == 0"
                    + " or patroni_postgres_running{\(cluster)} == 0 or pg_up{\(cluster)} == 0",
                holding: "30s", severity: "critical",
                summary: "{{ $labels.host }}: PostgreSQL or Patroni does not answer ({{ $labels.job }})"),
            Rule(
                name: "KeelNoLeader", expression: "absent(patroni_primary{\(cluster)} == 1)",
                // Longer than a failover takes (Patroni's ttl), so that a failover alone does not page.
                holding: "1m", severity: "critical", summary: "cluster \(model.name) has no leader"),
            Rule(
                name: "KeelReplicaLag",
                expression: "((max by (cluster) (patroni_xlog_location{\(cluster)})"
                    + " - on (cluster) group_right () patroni_xlog_received_location{\(cluster)})"
                    + " > \(model.patroni.maximumLagOnFailover))"
                    + " and on (cluster, host) (patroni_replica{\(cluster)} == 1)",
                holding: "1m", severity: "warning",
                summary:
                    "{{ $labels.host }} is {{ $value | humanize1024 }}B behind the leader, past maximum_lag_on_failover:"
                    + " it would not be promoted"),
            Rule(
                name: "KeelArchivingFailing",
                expression: "increase(pg_stat_archiver_failed_count{\(cluster)}[10m]) > 0",
                holding: "5m", severity: "critical",
                summary: "{{ $labels.host }}: archive_command keeps failing; WAL piles up in pg_wal"),
            Rule(
                name: "KeelDiskNearlyFull",
                expression: "node_filesystem_avail_bytes{\(cluster), fstype!~\"tmpfs|ramfs|squashfs|overlay\"}"
                    + " / node_filesystem_size_bytes < 0.10",
                holding: "10m", severity: "warning",
                summary: "{{ $labels.host }}: {{ $labels.mountpoint }} has less than 10% free"),
        ]
        if let backups = model.backups {
            let stanza = backups.stanza.replacingOccurrences(of: ".", with: "[.]")
            rules += [
                Rule(
                    name: "KeelBackupFailed",
                    expression: "node_systemd_unit_state{\(cluster), \(job(.node)), "
                        + "name=~\(promQLString("pgbackrest-\(stanza)@.*[.]service")), state=\"failed\"} == 1",
                    holding: "0s", severity: "critical",
                    summary: "{{ $labels.host }}: the last scheduled backup ({{ $labels.name }}) failed"),
                Rule(
                    name: "KeelBackupTooOld",
                    expression: "time() - max by (cluster) (node_systemd_timer_last_trigger_seconds{\(cluster), "
                        + "name=~\(promQLString("pgbackrest-\(stanza)-(full|diff)[.]timer"))} > 0)"
                        + " > \(backupAge(backups))",
                    holding: "0s", severity: "warning",
                    summary: "no backup of \(model.name) has started for longer than its schedule allows"),
            ]
        }
        if model.monitoringTargets.contains(where: { $0.exporter == .vip }) {
            rules.append(
                Rule(
                    name: "KeelVIPMissing", expression: "up{\(job(.vip))} == 0", holding: "30s", severity: "critical",
                    summary: "no balancer answers at \(model.vip?.address ?? "the VIP")"))
        }
        return rules
    }

    /// The seconds a backup may be older than: a day and two hours with a daily schedule (Keel's default
    /// differential backups), eight days otherwise (a weekly full backup).
    static func backupAge(_ backups: ClusterModel.Backups) -> Int {
        let daily = [backups.fullSchedule, backups.differentialSchedule].contains {
            $0.hasPrefix("*-*-* ") || $0.hasPrefix("daily") || $0.hasPrefix("Mon..Sat *-*-* ")
                || $0.hasPrefix("Mon..Sun *-*-* ")
        }
        return daily ? 26 * 3600 : 8 * 24 * 3600
    }

    /// A PromQL string literal: double quotes, `\` and `"` escaped.
    static func promQLString(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
