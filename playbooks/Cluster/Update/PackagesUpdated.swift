import Keel

/// The planned versions of a host's packages installed, the host's services stopped first (`stopping`, run only
/// when a package is to change); apt keeps the configuration files Keel wrote.
struct PackagesUpdated: Resource {
    let updates: [PackageUpdate]
    let stopping: String?

    var description: String { "packages updated: \(updates.map(\.name).joined(separator: " "))" }
    var affectsOtherResources: Bool { true }

    var probe: String {
        "dpkg-query -W -f='${Package}=${Version}\\n' \(updates.map { shellQuote($0.name) }.joined(separator: " ")) "
            + "2>/dev/null; true"
    }

    func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let installed = output.fields
        let due = updates.filter { installed[$0.name] != $0.candidate }
        guard !due.isEmpty else { return [] }
        let packages: [ShellCommand] = due.map { "\("\($0.name)=\($0.candidate)")" }
        let install = AptGet.install("--only-upgrade \(packages.joined(separator: " ").text)")
        return [
            Change(
                due.map(\.description).joined(separator: ", "),
                actions: (stopping.map { [.shell(.raw($0))] } ?? []) + [.detached(install)])
        ]
    }
}
