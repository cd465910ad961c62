import ArgumentParser
import Foundation
import Keel
import Playbooks

/// What every cluster flow's command takes: the inventory, how to connect, and how to run.
struct ClusterFlowOptions: ParsableArguments {
    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments
    @OptionGroup var run: RunArguments

    @Flag(help: "Refuse variables Keel does not use (by default they are ignored, with a warning naming them).")
    var strict = false

    /// Loads the inventory, the cluster model and its secrets, fetches what the flow carries to hosts (Patroni's
    /// wheel, the PgBouncer exporter's package) when it needs it, and runs the flow, once its plan is shown and its
    /// confirmations answered (by `answers` or at a prompt).
    /// Secrets generated for a run that stopped before changing anything are forgotten: they reached no host, and
    /// must not become the kept ones.
    func run<Flow: ClusterFlow>(_ flow: Flow, answers: ConfirmationAnswers = ConfirmationAnswers()) async throws {
        try await run(confirming: flow.confirmations, answers: answers) { _, _, _ in flow }
    }

    /// Whether this is a `--check` run, which shows the plan and asks for no confirmation.
    var checking: Bool { run.check }

    /// Like ``run(_:answers:)`` for a flow made from what the hosts report: `planning` reads them (through the
    /// fleet its last argument makes) and makes the flow. The answers to `early`, the confirmations the flow will
    /// ask for, are checked against the inventory before any host is contacted.
    func run<Flow: ClusterFlow>(
        confirming early: [FlowConfirmation], answers: ConfirmationAnswers,
        planning: (ClusterModel, Inventory, () throws -> Fleet) async throws -> Flow
    ) async throws {
        if !Flow.acceptsSelection {
            for (option, given) in [
                ("--limit", inventoryOptions.limit), ("--tags", run.tags), ("--skip-tags", run.skipTags),
            ] where given != nil {
                throw CLIError(
                    "\(Flow.name) works on the whole cluster: \(option) is refused (its checks and steps must see every host)"
                )
            }
        }
        let written = try inventoryOptions.load().0
        try checkNames(of: written)
        if !run.check {
            for confirmation in early { try answers.checkEarly(confirmation, inventory: written, for: Flow.name) }
        }
        // One connection per host for the whole command: facts, survey and run.
        let pool = ConnectionPool(
            connect: try connection.options(for: targets(of: written, written.hostNames)).connector)
        do {
            try await run(written, pool: pool, confirming: early, answers: answers, planning: planning)
        } catch {
            await pool.closeAll()
            throw error
        }
        await pool.closeAll()
    }

    private func run<Flow: ClusterFlow>(
        _ written: Inventory, pool: ConnectionPool, confirming early: [FlowConfirmation], answers: ConfirmationAnswers,
        planning: (ClusterModel, Inventory, () throws -> Fleet) async throws -> Flow
    ) async throws {
        let (inventory, facts) = try await connection.addingFacts(to: written, connector: pool.connector)
        let secrets = try ClusterSecrets(besideInventory: inventory.path, readOnly: !Flow.writesSecrets)
        let model: ClusterModel
        do {
            model = try ClusterModel.load(from: inventory, secrets: secrets)
        } catch {
            throw CLIError(error.description)
        }
        // A flow that may not make secrets must never render an empty one in their place.
        if !secrets.missing.isEmpty {
            let exists = FileManager.default.fileExists(atPath: secrets.path)
            throw CLIError(
                "\(Flow.name) needs the cluster's secrets, and \(secrets.path) "
                    + (exists ? "lacks \(secrets.missing.joined(separator: ", "))" : "does not exist")
                    + ": nothing was changed\n  hint: run keel where the cluster was deployed from, or copy its "
                    + ".keel-secrets.yml (mode 0600) beside the inventory; only keel deploy and add-node make secrets")
        }
        let flow: Flow
        let fleet = { Fleet(forks: max(connection.forks, model.allHosts.count), connector: pool.connector) }
        do {
            flow = try await planning(model, inventory, fleet)
            try flow.check(model)
            try await flow.readiness(model)?.refuseUnready(flow: Flow.name, inventory: inventory, fleet: fleet())
        } catch let error as FlowError {
            throw CLIError(error.description)
        } catch let error as StatusError {
            throw CLIError(error.description)
        }
        if let plan = flow.plan(model) { Terminal.write(plan) }
        if !run.check {
            for confirmation in flow.confirmations {
                try answers.require(confirmation, model: model, for: Flow.name)
            }
        }
        let software = CarriedSoftware(
            patroniWheel: Flow.needsPatroniWheel
                ? try PatroniWheel.load(version: model.patroni.version, digest: model.patroni.wheelDigest) : [],
            pgbouncerExporter: Flow.installsExporters && model.monitoring != nil && model.pgbouncer != nil
                ? try PgBouncerExporterPackage.load() : [])
        let playbook = flow.playbook(model, carrying: software)
        try run.checkTags(of: playbook)
        // Under --check nothing is written, the secrets file included.
        if Flow.writesSecrets, !run.check { try secrets.save() }
        try await run.apply(
            playbook, to: inventory, limit: inventoryOptions.limit, forks: connection.forks, connector: pool.connector,
            facts: facts
        ) { recap in
            if Flow.writesSecrets, !run.check, !recap.failedHosts.isEmpty, recap.totalChanged == 0 {
                try secrets.discardGenerated()
            }
            // The hosts changed: the Prometheus scraping them needs the new block.
            if !run.check, recap.failedHosts.isEmpty, !recap.interrupted, model.monitoring != nil,
                let removed = flow.targetsRemoved(model)
            {
                Terminal.write(
                    "\nThe cluster's scrape targets now (keel monitoring-targets prints them again):\n"
                        + terminalSafe(ScrapeConfigs.yaml(model, leaving: Set(removed)), keepingNewlines: true))
            }
        }
    }

    /// Refuses a misspelt variable before any host is contacted, and names those Keel does not use: a warning,
    /// or under `--strict` an error.
    private func checkNames(of inventory: Inventory) throws {
        let ignored: IgnoredVariables
        do {
            ignored = try ClusterModel.ignoredVariables(in: inventory)
        } catch {
            throw CLIError(error.description)
        }
        if strict, let options = ignoredSSHOptions(of: try targets(of: inventory, inventory.hostNames)) {
            throw CLIError(options + "\n  hint: --strict refuses them: remove them, or run without --strict")
        }
        guard let warning = ignored.warning else { return }
        if strict {
            throw CLIError(warning + "\n  hint: --strict refuses them: remove them, or run without --strict")
        }
        FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
    }
}
