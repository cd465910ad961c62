import Keel

extension ClusterStatus {
    /// Reads the running cluster over SSH: the members and etcd's health from the first database host that
    /// answers, the backups from the repository (on the repository host, or on that member for a shared
    /// repository), and which host holds the VIP.
    /// - Throws: ``StatusError`` when no database host answers.
    public static func gather(
        _ model: ClusterModel, inventory: Inventory, connection: ConnectionOptions, forks: Int
    ) async throws -> ClusterStatus {
        let fleet = Fleet(options: connection, forks: 1)
        var failures: [String] = []
        for host in model.databaseHosts {
            let outcome = await fleet.run([try inventory.target(for: host)]) { target, transport in
                var status = try await read(model, host: target.name, transport: transport)
                if let backups = model.backups, backups.repositoryHost == nil {
                    do {
                        status.backups = try await BackupStatus.read(backups, host: target.name, transport: transport)
                    } catch {
                        status.backupError = "\(error)"
                    }
                }
                return status
            }[0]
            switch outcome {
            case .done(var status, _):
                if let backups = model.backups, let repositoryHost = backups.repositoryHost {
                    do {
                        status.backups = try await BackupStatus.read(
                            backups, on: repositoryHost, inventory: inventory, fleet: fleet)
                    } catch {
                        status.backupError = "\(error)"
                    }
                }
                if let vip = model.vip {
                    status.vipHolder = try await holder(
                        of: vip, model: model, inventory: inventory, fleet: Fleet(options: connection, forks: forks))
                }
                return status
            case .unreachable(let error), .failed(let error):
                failures.append("\(host): \(error)")
            }
        }
        throw StatusError(description: "no member answered:\n" + failures.joined(separator: "\n"))
    }

    /// The host that holds `vip`, among the hosts that may.
    private static func holder(of vip: VIP, model: ClusterModel, inventory: Inventory, fleet: Fleet) async throws
        -> String?
    {
        let candidates = vip.candidates(in: model)
        let outcomes = await fleet.run(
            try candidates.map { host throws(InventoryError) in try inventory.target(for: host) }
        ) { _, transport in
            try await transport.run(holdsVIP(vip.address), timeout: .seconds(10)).succeeded
        }
        return zip(candidates, outcomes).first { if case .done(true, _) = $0.1 { true } else { false } }?.0
    }
}

/// The cluster's status could not be read.
public struct StatusError: Error, CustomStringConvertible {
    public var description: String
}

extension BackupStatus {
    /// `pgbackrest info`, read on the repository host `host`.
    static func read(_ backups: ClusterModel.Backups, on host: String, inventory: Inventory, fleet: Fleet) async throws
        -> BackupStatus
    {
        switch await fleet.run(
            [try inventory.target(for: host)],
            { _, transport in try await read(backups, host: host, transport: transport) })[0]
        {
        case .done(let status, _): return status
        case .unreachable(let error), .failed(let error): throw error
        }
    }
}
