import Keel

/// The cluster's targets as a Prometheus `scrape_configs` block to paste into the Prometheus an operator runs: one
/// job per exporter, each target labelled with its cluster, host and role.
public enum ScrapeConfigs {
    /// - Parameters:
    ///   - caFile: where the scraping Prometheus keeps the cluster's CA certificate (the hosts' `ca.crt`).
    ///   - passwordFile: where it keeps the scrape account's password (Keel's secrets file holds it).
    public static func yaml(_ model: ClusterModel, caFile: String, passwordFile: String) -> String {
        guard let monitoring = model.monitoring else { return "" }
        var text = "# Cluster \(model.name): \(model.monitoringTargets.count) targets."
        if model.tls != nil {
            text += " \(caFile): the cluster's CA certificate, from any host (\(TLSFiles.patroni.authority))."
        }
        text += "\n# \(passwordFile): \(ClusterSecrets.monitoringScrapePassword) from Keel's secrets file, mode 0600.\n"
        text += "scrape_configs:\n"
        for exporter in MonitoringTarget.Exporter.allCases {
            let targets = model.monitoringTargets.filter { $0.exporter == exporter }
            guard !targets.isEmpty else { continue }
            text += "  - job_name: \(yamlQuote("\(model.name)-\(exporter.rawValue)"))\n"
            if exporter.servesTLS, model.tls != nil {
                text += "    scheme: https\n    tls_config:\n      ca_file: \(yamlQuote(caFile))\n"
            }
            if exporter.checksPassword {
                text += "    basic_auth:\n      username: \(yamlQuote(monitoring.scrapeUser))\n"
                text += "      password_file: \(yamlQuote(passwordFile))\n"
            }
            text += "    static_configs:\n"
            for target in targets {
                text += "      - targets: [\(yamlQuote(target.endpoint))]\n"
                text += "        labels: {cluster: \(yamlQuote(model.name)), host: \(yamlQuote(target.host)), "
                text += "role: \(yamlQuote(target.role))}\n"
            }
        }
        return text
    }
}
