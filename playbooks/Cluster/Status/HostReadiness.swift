import Keel

/// Whether the hosts a flow acts on can take its steps, read before it changes anything: each reachable, its
/// packages settled (``PackageState``: no earlier run's package job, dpkg not interrupted), and Patroni installed on
/// the `members` among them. A restore that stopped two members and then failed on a half-added third would leave
/// the cluster half down: it refuses instead, naming the host, why, and what to do.
public struct HostReadiness: Sendable {
    /// The hosts the flow acts on.
    public var hosts: [String]
    /// Those of them whose Patroni it stops, starts or asks.
    public var members: [String]

    public init(hosts: [String], members: [String]) {
        self.hosts = hosts
        self.members = members
    }

    /// `model`'s database hosts and its repository host: what a flow on the cluster's data acts on, with Patroni
    /// on the database hosts.
    public static func databaseAndRepository(_ model: ClusterModel) -> HostReadiness {
        HostReadiness(hosts: model.databaseAndRepositoryHosts, members: model.databaseHosts)
    }

    /// The probe's `package-job=`, `dpkg=` and `patroni=installed|missing` lines (read as root: Keel's jobs are
    /// root's).
    static let probe =
        PackageState.probe + "; [ -e \(PatroniNodeRole.unitFile) ] && echo patroni=installed || echo patroni=missing"

    /// Why a host cannot take a flow's steps.
    public enum Problem: Sendable, CustomStringConvertible {
        /// No connection, or the probe failed: with why.
        case unreachable(String)
        /// A package job still runs, or dpkg was interrupted.
        case packages(PackageState)
        /// A member without Patroni: a half-added one (add-node stopped before Patroni's package and unit).
        case patroniMissing

        var isUnreachable: Bool { if case .unreachable = self { true } else { false } }

        public var description: String {
            switch self {
            case .unreachable(let why): "it cannot be read (\(why))"
            case .packages(let state): state.problem ?? "its packages are settled"
            case .patroniMissing: "Patroni is not installed (a half-added member)"
            }
        }
    }

    /// What keeps a host from taking steps, from `output` (``probe``'s); empty when nothing does.
    static func problems(_ output: ProbeOutput, member: Bool) -> [Problem] {
        let packages = PackageState(output)
        var problems: [Problem] = packages.isSettled ? [] : [.packages(packages)]
        if member, output.fields["patroni"] != "installed" { problems.append(.patroniMissing) }
        return problems
    }

    /// What keeps each host from taking steps, by host.
    public func problems(inventory: Inventory, fleet: Fleet) async -> [String: [Problem]] {
        var found: [String: [Problem]] = [:]
        var targets: [HostTarget] = []
        for host in hosts {
            do {
                targets.append(try inventory.target(for: host))
            } catch {
                found[host] = [.unreachable("\(error)")]
            }
        }
        let outcomes = await fleet.run(targets) { target, transport in
            let result = try await transport.run(Self.probe, become: target.privileged, timeout: .seconds(20))
            return ProbeOutput(text: result.stdoutText)
        }
        for (target, outcome) in zip(targets, outcomes) {
            switch outcome {
            case .done(let output, _):
                let problems = Self.problems(output, member: members.contains(target.name))
                if !problems.isEmpty { found[target.name] = problems }
            case .unreachable(let error), .failed(let error): found[target.name] = [.unreachable("\(error)")]
            }
        }
        return found
    }

    /// Refuses `flow` when a host cannot take its steps.
    /// - Throws: ``FlowError`` naming every such host, why, and what to do.
    public func refuseUnready(flow: String, inventory: Inventory, fleet: Fleet) async throws(FlowError) {
        let found = await problems(inventory: inventory, fleet: fleet)
        let named = hosts.filter { found[$0] != nil }
        guard !named.isEmpty else { return }
        throw FlowError(
            "\(flow) changes nothing: "
                + named.map { "\($0) cannot take its steps: \(found[$0]!.map(\.description).joined(separator: ", "))" }
                .joined(separator: "; "),
            hint: Self.remedy(named.flatMap { found[$0]! }, on: named))
    }

    /// What to do about `problems` on `hosts`, the last resort (taking them out of the inventory) last.
    static func remedy(_ problems: [Problem], on hosts: [String]) -> String {
        var remedies: [String] = []
        if problems.contains(where: \.isUnreachable) { remedies.append("bring the host back (keel ping)") }
        if problems.contains(where: { !$0.isUnreachable }) {
            remedies.append(
                "finish it with keel add-node (a new member) or keel deploy, which wait for a package job and finish "
                    + "an interrupted dpkg")
        }
        return remedies.joined(separator: ", ") + ", or take \(hosts.joined(separator: ", ")) out of the inventory"
    }
}
