import Keel
import Playbooks

extension ClusterModel {
    /// The model of `inventory` with only the secrets already kept beside it (none generated), for commands that
    /// only read; an error in the inventory is the command's error.
    static func readingOnly(_ inventory: Inventory) throws -> ClusterModel {
        do {
            return try ClusterModel.load(
                from: inventory, secrets: ClusterSecrets(besideInventory: inventory.path, readOnly: true))
        } catch {
            throw CLIError("\(error)")
        }
    }
}
