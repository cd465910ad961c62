import Keel

/// The cluster's targets as a Prometheus `scrape_configs` block to paste into the Prometheus an operator runs: one
/// job per exporter, each target labelled with its cluster, host and role.
public enum ScrapeConfigs {
    /// Where the scraping Prometheus keeps the cluster's files unless told otherwise (``Files``).
    public static let directory = "/etc/prometheus/keel"

    /// The files the scraping Prometheus reads: the cluster's CA certificate, the scrape account's password, and
    /// the certificate and key it presents to Patroni's REST API (``TLSService/scraper``).
    public struct Files: Sendable {
        public var authority: String
        public var password: String
        public var clientCertificate: String
        public var clientKey: String

        /// `DIRECTORY/CLUSTER-ca.crt`, `DIRECTORY/CLUSTER.password`, `DIRECTORY/CLUSTER-patroni-client.crt` and
        /// `.key`.
        public init(in directory: String = ScrapeConfigs.directory, cluster: String) {
            authority = "\(directory)/\(cluster)-ca.crt"
            password = "\(directory)/\(cluster).password"
            clientCertificate = "\(directory)/\(cluster)-patroni-client.crt"
            clientKey = "\(directory)/\(cluster)-patroni-client.key"
        }
    }

    /// Each of `files`' contents from the model (the secrets file): what `keel monitoring-targets --write-files`
    /// writes, the password and key 0600. Empty when monitoring or TLS is off, or the secrets file lacks one (a
    /// deploy makes them).
    public static func contents(_ model: ClusterModel, _ files: Files) -> [(path: String, content: Secret)] {
        guard let monitoring = model.monitoring, let tls = model.tls,
            let scraper = tls.issued(.scraper, on: TLSService.scraperHolder), !scraper.certificate.isEmpty,
            !tls.authority.isEmpty
        else { return [] }
        return [
            (files.authority, Secret(tls.authority)), (files.password, monitoring.scrapePassword),
            (files.clientCertificate, Secret(scraper.certificate)), (files.clientKey, scraper.key),
        ]
    }

    /// - Parameters:
    ///   - files: where the scraping Prometheus keeps what it reads.
    ///   - leaving: hosts whose targets are gone (a flow removed them).
    public static func yaml(_ model: ClusterModel, files: Files? = nil, leaving: Set<String> = []) -> String {
        guard let monitoring = model.monitoring else { return "" }
        let files = files ?? Files(cluster: model.name)
        let (caFile, passwordFile) = (files.authority, files.password)
        let targets = model.monitoringTargets.filter { !leaving.contains($0.host) || $0.exporter == .vip }
        guard targets.contains(where: { $0.exporter != .vip }) else {
            return "# Cluster \(model.name): no targets remain; remove its jobs (\(model.name)-*) from Prometheus.\n"
        }
        var text = "# Cluster \(model.name): \(targets.count) targets."
        text += "\n# keel monitoring-targets --write-files DIRECTORY writes what it reads: "
        if model.tls != nil {
            text += "the cluster's CA certificate, the client certificate and key for Patroni's API, "
        }
        text += "the scrape password (\(ClusterSecrets.monitoringScrapePassword)); the key and password 0600.\n"
        text += "scrape_configs:\n"
        for exporter in MonitoringTarget.Exporter.allCases {
            let jobTargets = targets.filter { $0.exporter == exporter }
            guard !jobTargets.isEmpty else { continue }
            text += "  - job_name: \(yamlQuote("\(model.name)-\(exporter.rawValue)"))\n"
            if model.tls != nil {
                text += "    scheme: https\n    tls_config:\n      ca_file: \(yamlQuote(caFile))\n"
                if exporter == .patroni {
                    text += "      cert_file: \(yamlQuote(files.clientCertificate))\n"
                    text += "      key_file: \(yamlQuote(files.clientKey))\n"
                }
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
