import Keel

/// The cluster's targets as a Prometheus `scrape_configs` block to paste into the Prometheus an operator runs: one
/// job per exporter, each target labelled with its cluster, host and role.
public enum ScrapeConfigs {
    /// Where the scraping Prometheus keeps the cluster's files unless told otherwise: `DIRECTORY/CLUSTER-ca.crt`
    /// and `DIRECTORY/CLUSTER.password`.
    public static let directory = "/etc/prometheus/keel"

    /// - Parameters:
    ///   - caFile: where the scraping Prometheus keeps the cluster's CA certificate (the hosts' `ca.crt`).
    ///   - passwordFile: where it keeps the scrape account's password (Keel's secrets file holds it).
    ///   - leaving: hosts whose targets are gone (a flow removed them).
    public static func yaml(
        _ model: ClusterModel, caFile: String? = nil, passwordFile: String? = nil, leaving: Set<String> = []
    ) -> String {
        guard let monitoring = model.monitoring else { return "" }
        let caFile = caFile ?? "\(directory)/\(model.name)-ca.crt"
        let passwordFile = passwordFile ?? "\(directory)/\(model.name).password"
        let targets = model.monitoringTargets.filter { !leaving.contains($0.host) || $0.exporter == .vip }
        guard targets.contains(where: { $0.exporter != .vip }) else {
            return "# Cluster \(model.name): no targets remain; remove its jobs (\(model.name)-*) from Prometheus.\n"
        }
        var text = "# Cluster \(model.name): \(targets.count) targets."
        if model.tls != nil {
            text += " \(caFile): the cluster's CA certificate, from any host (\(TLSFiles.patroni.authority))."
        }
        text += "\n# \(passwordFile): \(ClusterSecrets.monitoringScrapePassword) from Keel's secrets file, mode 0600.\n"
        text += "scrape_configs:\n"
        for exporter in MonitoringTarget.Exporter.allCases {
            let jobTargets = targets.filter { $0.exporter == exporter }
            guard !jobTargets.isEmpty else { continue }
            text += "  - job_name: \(yamlQuote("\(model.name)-\(exporter.rawValue)"))\n"
            if model.tls != nil {
                text += "    scheme: https\n    tls_config:\n      ca_file: \(yamlQuote(caFile))\n"
            }
            if exporter.checksPassword {
                text += "    basic_auth:\n      username: \(yamlQuote(monitoring.scrapeUser))\n"
                text += "      password_file: \(yamlQuote(passwordFile))\n"
            }
            text += "    static_configs:\n"
            for target in jobTargets {
                text += "      - targets: [\(yamlQuote(target.endpoint))]\n"
                text += "        labels: {cluster: \(yamlQuote(model.name)), host: \(yamlQuote(target.host)), "
                text += "role: \(yamlQuote(target.role))}\n"
            }
        }
        return text
    }
}
