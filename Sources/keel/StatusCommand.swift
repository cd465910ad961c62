import ArgumentParser
import Foundation
import Keel
import KeelSSH
import Playbooks

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the running cluster: members, roles, states, timelines, lag, etcd's health, the VIP and the backups.")

    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let (inventory, _) = try inventoryOptions.load()
        let model: ClusterModel
        do {
            model = try ClusterModel.load(from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path, readOnly: true))
        } catch let error as InventoryError {
            throw CLIError(error.description)
        }
        let hosts = try targets(of: inventory, model.databaseHosts, knownHosts: connection.knownHosts)
        let options = try connection.options(for: hosts)
        var failures: [String] = []
        for target in hosts {
            do {
                let ssh = try await SSHConnection.connect(options.configuration(for: target))
                var status: ClusterStatus
                do {
                    status = try await ClusterStatus.read(model, host: target.name, transport: ssh)
                    if let backups = model.backups {
                        do {
                            // A shared repository is read on this member, over the connection already open.
                            status.backups = if let repositoryHost = backups.repositoryHost {
                                try await backupStatus(backups, on: repositoryHost, inventory: inventory, options: options)
                            } else {
                                try await BackupStatus.read(backups, host: target.name, transport: ssh)
                            }
                        } catch {
                            status.backupError = "\(error)"
                        }
                    }
                } catch {
                    await ssh.close()
                    throw error
                }
                await ssh.close()
                if let vip = model.vip {
                    status.vipHolder = try await vipHolder(vip, model: model, inventory: inventory, options: options)
                }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    Terminal.write(String(decoding: try encoder.encode(status), as: UTF8.self) + "\n")
                } else {
                    Terminal.write(status.table)
                }
                return
            } catch {
                failures.append("\(target.name): \(error)")
            }
        }
        throw CLIError("no member answered:\n" + failures.joined(separator: "\n"))
    }

    /// `pgbackrest info`, read on the repository host `host`.
    private func backupStatus(
        _ backups: ClusterModel.Backups, on host: String, inventory: Inventory, options: ConnectionOptions
    ) async throws -> BackupStatus {
        let fleet = Fleet(options: options, forks: 1)
        let target = try targets(of: inventory, [host], knownHosts: connection.knownHosts)
        switch await fleet.run(target, { _, ssh in try await BackupStatus.read(backups, host: host, transport: ssh) })[0] {
        case .done(let status, _): return status
        case .unreachable(let error): throw error
        case .failed(let error): throw error
        }
    }

    /// Which host holds the VIP: a balancer with HAProxy, else a database host.
    private func vipHolder(_ vip: String, model: ClusterModel, inventory: Inventory, options: ConnectionOptions) async throws -> String? {
        let candidates = model.withHAProxy ? model.balancerHosts : model.databaseHosts
        let fleet = Fleet(options: options, forks: connection.forks)
        let outcomes = await fleet.run(try targets(of: inventory, candidates, knownHosts: connection.knownHosts)) { _, ssh in
            try await ssh.run(ClusterStatus.holdsVIP(vip), timeout: .seconds(10)).succeeded
        }
        return zip(candidates, outcomes).first { if case .done(true, _) = $0.1 { true } else { false } }?.0
    }
}
