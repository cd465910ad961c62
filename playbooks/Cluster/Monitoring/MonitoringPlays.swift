import Keel

/// The plays of the cluster's Prometheus exporters.
enum MonitoringPlays {
    /// The exporters on `hosts` (every host by default) when `keel_monitoring` is true; when it is false, the
    /// exporters Keel installed there (its files mark them) stopped, purged and their files deleted, and nothing
    /// done where Keel installed none.
    static func exporters(_ model: ClusterModel, carrying software: CarriedSoftware, on hosts: [String]? = nil)
        -> Play
    {
        Play("monitoring", on: model.pattern(hosts ?? model.allHosts), tags: ["monitoring"]) { host in
            if let settings = model.monitoring {
                MonitoringRole(
                    host: host, model: model, settings: settings, pgbouncerExporter: software.pgbouncerExporter
                ).steps
            } else {
                removed
            }
        }
    }

    /// Keel's exporters gone from `hosts`, which leave the cluster (nothing done where Keel installed none).
    static func retired(_ model: ClusterModel, on hosts: [String]) -> Play {
        Play("exporters removed", on: model.pattern(hosts), tags: ["monitoring"]) { _ in removed }
    }

    /// Keel's exporters gone from a host where monitoring was turned off.
    static var removed: Command {
        let list = MonitoringRole.exporters.joined(separator: " ")
        return Command(
            "systemctl disable --now \(raw: list) 2>/dev/null;"
                + " \(AptGet.remove(list, purging: true))"
                + " && rm -rf \(MonitoringRole.directory) \(PgBouncerExporterRole.dropIn) \(PgBouncerExporterRole.packageFile)"
                + " && systemctl daemon-reload",
            what: "exporters removed (monitoring is off)", unless: "[ ! -e \(MonitoringRole.directory) ]",
            detached: true)
    }
}
