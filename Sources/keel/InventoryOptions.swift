import ArgumentParser
import Foundation
import Keel

/// Options every command that reads an inventory shares.
struct InventoryOptions: ParsableArguments {
    @Option(name: [.customShort("i"), .long], help: "The inventory file (YAML or Ansible INI).")
    var inventory: String

    @Option(name: .long, help: "Only hosts matching this pattern (group, host, glob, a:b, a:!b, a:&b, @file).")
    var limit: String?

    @Option(
        name: [.customShort("e"), .customLong("extra-vars")],
        help: "Variables over every other: NAME=VALUE words, JSON or YAML text, or @FILE (repeatable; later wins).")
    var extraVars: [String] = []

    func validate() throws {
        if let limit, limit.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--limit is empty (an unset shell variable?); leave it out to select every host")
        }
    }

    /// Loads the inventory and the hosts selected by `--limit`, or exits with the inventory's error.
    func load() throws -> (Inventory, [String]) {
        do {
            var inventory = try Inventory.load(path: inventory)
            for (index, argument) in extraVars.enumerated() {
                inventory = inventory.adding(
                    extraVariables: try ExtraVariables.parse(argument, position: index + 1))
            }
            let hosts =
                try limit.map { pattern throws(InventoryError) in try inventory.select(pattern) } ?? inventory.hostNames
            return (inventory, hosts)
        } catch {
            throw CLIError(error.description)
        }
    }
}

/// Options for commands that connect to hosts.
struct ConnectionArguments: ParsableArguments {
    @Option(name: .shortAndLong, help: "How many hosts to work on at once.")
    var forks: Int = 10

    @Option(
        name: .long,
        help:
            "known_hosts file for every host; wins over the inventory's keel_known_hosts_file (default ~/.ssh/known_hosts)."
    )
    var knownHosts: String?

    @Flag(name: .long, help: "Record the keys of hosts not yet in known_hosts (a changed key is still refused).")
    var acceptNewHostKeys = false

    @Option(name: .long, help: "Seconds to wait for a host to connect and authenticate.")
    var connectTimeout: Int = 10

    @Option(
        name: .long,
        help:
            "Seconds the hosts' SSH sessions stay open after the run for the next one (0: keep none; KEEL_KEEP_CONNECTIONS)."
    )
    var keepConnections: Int = ProcessInfo.processInfo.environment["KEEL_KEEP_CONNECTIONS"].flatMap { Int($0) } ?? 60

    @Flag(
        name: [.customShort("k"), .long], help: "Ask for the SSH password (else KEEL_SSH_PASSWORD, if set, is offered)."
    )
    var askPass = false

    func validate() throws {
        guard (1...256).contains(forks) else { throw ValidationError("--forks must be from 1 to 256, not \(forks)") }
        guard (1...600).contains(connectTimeout) else {
            throw ValidationError("--connect-timeout must be from 1 to 600 seconds, not \(connectTimeout)")
        }
        guard (0...3600).contains(keepConnections) else {
            throw ValidationError("--keep-connections must be from 0 to 3600 seconds, not \(keepConnections)")
        }
    }

    /// The environment variables that hand keel the SSH password and key passphrases.
    static let passwordVariable = "KEEL_SSH_PASSWORD"
    static let passphraseVariable = "KEEL_SSH_PASSPHRASE"

    /// Connection options, asking for key passphrases the environment does not give. ssh options of the
    /// inventory that Keel does not honour are named in a warning.
    func options(for targets: [HostTarget]) throws -> ConnectionOptions {
        if let warning = ignoredSSHOptions(of: targets) {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
        let environment = ProcessInfo.processInfo.environment
        var options = ConnectionOptions(
            knownHostsOverride: knownHosts, acceptNewHostKeys: acceptNewHostKeys,
            connectTimeout: .seconds(connectTimeout), password: environment[Self.passwordVariable].map(Secret.init),
            keeper: SessionKeeper.address(
                persist: keepConnections,
                withholding: [ConnectionArguments.passwordVariable, ConnectionArguments.passphraseVariable]))
        if askPass {
            guard let typed = Terminal.askSecret("SSH password: ") else {
                throw CLIError("--ask-pass needs a terminal; set KEEL_SSH_PASSWORD instead")
            }
            options.password = typed
        }
        for key in ConnectionOptions.encryptedKeys(for: targets) {
            if let passphrase = environment[Self.passphraseVariable] {
                options.passphrases[key] = Secret(passphrase)
            } else if let typed = Terminal.askSecret("Passphrase for \(key): ") {
                options.passphrases[key] = typed
            }
        }
        return options
    }
}

/// Resolves the targets of the selected hosts, or exits with the inventory's error.
func targets(of inventory: Inventory, _ hosts: [String]) throws -> [HostTarget] {
    do {
        return try hosts.map { host throws(InventoryError) in try inventory.target(for: host) }
    } catch {
        throw CLIError(error.description)
    }
}

/// The ssh options of `targets`' inventory that Keel has no equivalent for, each once with the hosts it is set
/// for; nil when there are none.
func ignoredSSHOptions(of targets: [HostTarget]) -> String? {
    var hosts: [String: [String]] = [:]
    for target in targets {
        for option in target.ignoredSSHOptions { hosts[option, default: []].append(target.name) }
    }
    guard !hosts.isEmpty else { return nil }
    let lines = hosts.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value.joined(separator: ", "))" }
    return "Keel has no equivalent for these ssh options of the inventory, and ignores them:\n"
        + lines.joined(separator: "\n")
}
