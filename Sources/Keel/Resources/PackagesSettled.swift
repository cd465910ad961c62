/// The host's packages left as a run found them whole: a package job an earlier run started (``DetachedJob``) has
/// ended, and dpkg work it left interrupted (a host that lost power mid-install, a dpkg killed by hand) is
/// finished with `dpkg --configure -a`, keeping the configuration files in place. Else every apt run after refuses
/// ("dpkg was interrupted, you must manually run 'dpkg --configure -a'").
///
/// Put it before a play's first package step; ``PackageState`` reads the same for the flows that refuse instead.
public struct PackagesSettled: Resource {
    public init() {}

    public var description: String { "packages settled (no earlier run's package job, dpkg not interrupted)" }
    public var affectsOtherResources: Bool { true }
    public var probeWaits: Bool { false }

    public var probe: String { PackageState.probe }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let state = PackageState(output)
        guard !state.isSettled else { return [] }
        var actions: [Action] = []
        if state.jobRunning { actions.append(.shell(DetachedJob.ended(within: 1800), timeout: .seconds(1860))) }
        // Whether dpkg was left interrupted is known only once the job ended: asked again then.
        actions.append(
            .detached(
                "if ! \(raw: PackageState.dpkgWhole); then DEBIAN_FRONTEND=noninteractive dpkg --force-confdef "
                    + "--force-confold --configure -a; fi"))
        let summary = [
            state.jobRunning ? "wait for the package job an earlier run left running" : nil,
            state.dpkgInterrupted || state.jobRunning ? "finish dpkg's interrupted work (dpkg --configure -a)" : nil,
        ].compactMap { $0 }.joined(separator: ", then ")
        return [Change(summary, actions: actions)]
    }
}

/// Whether a host's packages can take a step now, as ``PackagesSettled`` probes it: no ``DetachedJob`` running,
/// dpkg not interrupted (no pending journal in `/var/lib/dpkg/updates`, no package half installed or configured).
public struct PackageState: Sendable, Equatable {
    public var jobRunning: Bool
    public var dpkgInterrupted: Bool

    public var isSettled: Bool { !jobRunning && !dpkgInterrupted }

    /// What is wrong, in words for a refusal; nil when settled.
    public var problem: String? {
        if jobRunning { return "a package job of an earlier keel run is still running (\(DetachedJob.unitPrefix)*)" }
        if dpkgInterrupted { return "dpkg was interrupted: a package is half installed" }
        return nil
    }

    /// `package-job=running|none` and `dpkg=interrupted|whole` lines; read-only, one process (grep) at most, and
    /// safe in the probe script's own shell (``Resource/probeWaits``).
    public static let probe =
        "if \(DetachedJob.mayRun.text); then echo package-job=running; else echo package-job=none; fi; "
        + "if \(dpkgWhole); then echo dpkg=whole; else echo dpkg=interrupted; fi"

    /// A shell test that succeeds when dpkg has no interrupted work: apt's own test (a file in dpkg's `updates`
    /// journal) and a package in a state between unpacked and installed. True where there is no dpkg.
    /// It sets the shell variable `u`.
    static let dpkgWhole =
        "{ for u in /var/lib/dpkg/updates/*; do break; done; [ ! -e \"$u\" ] && "
        + "! grep -qsE '^Status: [a-z]+ [a-z]+ (half-installed|unpacked|half-configured|triggers-awaited|triggers-pending)$' "
        + "/var/lib/dpkg/status; }"

    public init(_ output: ProbeOutput) {
        let fields = output.fields
        jobRunning = fields["package-job"] == "running"
        dpkgInterrupted = fields["dpkg"] == "interrupted"
    }
}
