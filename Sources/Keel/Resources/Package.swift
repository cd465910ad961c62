/// System packages installed (or removed) with the host's package manager: apt on Debian, dnf on the RHEL family,
/// run to its end whatever becomes of the run (``Action/detached(_:timeout:)``).
public struct Package: Resource {
    public enum State: Sendable { case present, absent }

    public var names: [String]
    public var state: State

    public init(_ names: String..., state: State = .present) {
        self.names = names
        self.state = state
    }

    public init(_ names: [String], state: State = .present) {
        self.names = names
        self.state = state
    }

    public var description: String { "package \(names.joined(separator: " "))" }

    /// Waits (up to 300 s) until no other apt runs: apt waits for dpkg's lock but not for the package lists' lock,
    /// so an apt-get another run left behind (a killed keel's, say) must finish before a refresh, or it fails and
    /// no package is found.
    public static let otherRunsEnded = Poll(
        until: "! grep -qsx -e apt-get -e apt /proc/[0-9]*/comm", seconds: 300, onTimeout: .proceed
    ).command
    public var affectsOtherResources: Bool { true }

    /// Prints one `name=installed|missing` line per package, from one `dpkg-query` for them all.
    public var probe: String {
        let list = names.map(shellQuote).joined(separator: " ")
        return """
            if command -v dpkg-query >/dev/null 2>&1; then \
            s=" $(dpkg-query -W -f=' ${Package}=${db:Status-Abbrev}' \(list) 2>/dev/null) "; \
            for p in \(list); do case "$s" in *" $p=ii"*) echo "$p=installed";; *) echo "$p=missing";; esac; done; \
            else for p in \(list); do rpm -q "$p" >/dev/null 2>&1 && echo "$p=installed" || echo "$p=missing"; done; fi
            """
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        let wrong = names.filter { (fields[$0] == "installed") != (state == .present) }
        guard !wrong.isEmpty else { return [] }
        let manager = PackageManager(facts: host.facts)
        return [
            Change(
                "\(state == .present ? "install" : "remove") \(wrong.joined(separator: " "))",
                .detached(.raw(state == .present ? manager.install(wrong) : manager.remove(wrong))))
        ]
    }
}

/// The commands of one package manager.
struct PackageManager {
    let isApt: Bool

    init(facts: Facts) { isApt = facts.packageManager != "dnf" && facts.packageManager != "yum" }

    /// Refreshes package lists older than an hour first (and again if a package is not found), and waits for
    /// another apt run to finish (its refresh, or its dpkg). A stalled mirror or proxy must not hang the run: each
    /// apt call is bounded by `timeout`, and a stalled refresh is tried again. The install itself is
    /// ``AptGet/install(_:)``'s.
    func install(_ names: [String]) -> String {
        let list = names.map(shellQuote).joined(separator: " ")
        guard isApt else { return "dnf install -y \(list)" }
        let install = AptGet.install("\(AptGet.network) \(list)").text
        let update =
            "\(Package.otherRunsEnded); for attempt in 1 2 3; do \(AptGet.update(within: 120).text) && break; sleep 2; done"
        return
            "if [ -z \"$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -60 2>/dev/null | head -1)\" ]; then "
            + "\(update); fi; \(install) || { \(update); \(install); }"
    }

    func remove(_ names: [String]) -> String {
        let list = names.map(shellQuote).joined(separator: " ")
        return isApt ? AptGet.remove(list).text : "dnf remove -y \(list)"
    }
}
