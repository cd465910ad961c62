import Keel

/// One component's part of the pre-flight checks (``Preflight``): the lines its probe adds on a host, and the
/// problems it reads from the probe's output. It never changes the host.
protocol PreflightCheck: Sendable {
    /// Shell lines printing `key=value` facts this check needs on `host`; empty when it has nothing to check there.
    func probe(_ model: ClusterModel, host: String) -> ShellCommand
    /// What keeps `host` from taking its part, each a sentence saying what to do.
    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String]
}

/// The probe's output: one `key=value` fact a line (a key may come several times).
struct PreflightFindings: Sendable {
    let lines: [String]

    init(_ text: String) { lines = text.split(separator: "\n").map(String.init) }

    /// The first value of `key`.
    func value(_ key: String) -> String? { values(key).first }

    /// Every value of `key`, in order.
    func values(_ key: String) -> [String] {
        lines.filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// Whether the probe printed `line`.
    func contains(_ line: String) -> Bool { lines.contains(line) }
}
