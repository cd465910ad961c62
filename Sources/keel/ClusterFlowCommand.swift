import ArgumentParser
import Keel
import Playbooks

/// What every cluster flow's command takes: the inventory, how to connect, and how to run.
struct ClusterFlowOptions: ParsableArguments {
    @OptionGroup var inventoryOptions: InventoryOptions
    @OptionGroup var connection: ConnectionArguments
    @OptionGroup var run: RunArguments

    /// Loads the inventory, the cluster model and its secrets, fetches the Patroni wheel when the flow needs it,
    /// and runs the flow. Secrets generated for a run that stopped before changing anything are forgotten: they
    /// reached no host, and must not become the kept ones.
    /// `confirm` sees the model before any host is contacted and throws to stop (not under --check).
    func run<Flow: ClusterFlow>(_ flow: Flow, confirm: (ClusterModel) throws -> Void = { _ in }) async throws {
        try await run(planning: { _, _, _ in flow }, confirm: { model, _ in try confirm(model) })
    }

    /// Like ``run(_:confirm:)`` for a flow made from what the hosts report: `planning` reads them (with the
    /// connection options its last argument makes) and makes the flow, which `confirm` then sees.
    func run<Flow: ClusterFlow>(
        planning: (ClusterModel, Inventory, () throws -> ConnectionOptions) async throws -> Flow,
        confirm: (ClusterModel, Flow) throws -> Void
    ) async throws {
        let inventory = try await connection.addingFacts(to: try inventoryOptions.load().0)
        let secrets = try ClusterSecrets(besideInventory: inventory.path, readOnly: !Flow.writesSecrets)
        let model: ClusterModel
        do {
            model = try ClusterModel.load(from: inventory, secrets: secrets)
        } catch {
            throw CLIError(error.description)
        }
        let flow: Flow
        do {
            flow = try await planning(model, inventory) {
                try connection.options(for: targets(of: inventory, inventory.hostNames))
            }
            try flow.check(model)
        } catch let error as FlowError {
            throw CLIError(error.description)
        } catch let error as StatusError {
            throw CLIError(error.description)
        }
        if !run.check { try confirm(model, flow) }
        let wheel =
            Flow.needsPatroniWheel
            ? try PatroniWheel.load(version: model.patroniVersion, digest: model.patroniWheelDigest) : []
        // Under --check nothing is written, the secrets file included.
        if Flow.writesSecrets, !run.check { try secrets.save() }
        try await run.apply(
            flow.playbook(model, patroniWheel: wheel), inventoryOptions: inventoryOptions, connection: connection
        ) { recap in
            if Flow.writesSecrets, !run.check, !recap.failedHosts.isEmpty, recap.totalChanged == 0 {
                try secrets.discardGenerated()
            }
        }
    }
}
