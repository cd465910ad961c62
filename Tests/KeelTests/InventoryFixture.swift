import Foundation
import Keel

/// A throw-away folder holding an inventory file and, optionally, group_vars/ and host_vars/ files.
struct InventoryFixture {
    let directory: URL

    init(_ files: [String: String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-inventory-\(UUID().uuidString)")
        for (path, text) in files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func load(_ name: String) throws -> Inventory { try Inventory.load(path: path(name)) }

    /// The error loading `name` gives, or nil when it loads.
    func error(loading name: String) -> InventoryError? {
        do {
            _ = try Inventory.load(path: path(name))
            return nil
        } catch {
            return error
        }
    }
}
