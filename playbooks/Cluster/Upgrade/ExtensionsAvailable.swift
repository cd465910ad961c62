import Keel

/// Every extension the running cluster's databases hold has its files for the new release on this host: else
/// pg_upgrade would fail half way.
struct ExtensionsAvailable: Resource {
    let version: Int
    let extensions: [String]

    var description: String { "extensions available in PostgreSQL \(version)" }

    var probe: String {
        let checks: [ShellCommand] = extensions.map { name in
            "[ -e \("/usr/share/postgresql/\(version)/extension/\(name).control") ] || echo \("missing=" + name)"
        }
        // Before the release is installed (a --check run), there is nothing to judge yet.
        let installed: ShellCommand = "[ -x \("/usr/lib/postgresql/\(version)/bin/postgres") ]"
        let probe: ShellCommand =
            "if \(installed); then \((checks + ["true"]).joined(separator: "; ")); else echo absent; fi"
        return probe.text
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        guard output.text != "absent" else { return [] }
        let missing = output.text.split(separator: "\n").filter { $0.hasPrefix("missing=") }.map { $0.dropFirst(8) }
        guard missing.isEmpty else {
            throw ResourceError(
                "PostgreSQL \(version) on \(host.name) lacks the extension(s) \(missing.joined(separator: ", ")) the "
                    + "databases use: install their packages for \(version) (as postgresql-\(version)-NAME), then run "
                    + "again; the running cluster was not changed")
        }
        return []
    }
}
