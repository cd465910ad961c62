import Foundation
import Keel
import Testing

@Suite("Host patterns for --limit")
struct HostPatternTests {
    let inventory: Inventory

    init() throws {
        let fixture = try InventoryFixture(["cluster.ini": InventoryTests.ini])
        inventory = try fixture.load("cluster.ini")
    }

    @Test(
        "groups, hosts, unions, exclusions, intersections and globs",
        arguments: [
            ("replica", ["10.213.0.12", "10.213.0.13"]),
            ("10.213.0.14", ["10.213.0.14"]),
            ("master:balancers", ["10.213.0.11", "10.213.0.14", "10.213.0.15"]),
            ("all:!etcd_cluster", ["10.213.0.14", "10.213.0.15"]),
            ("postgres_cluster:&etcd_cluster:!master", ["10.213.0.12", "10.213.0.13"]),
            ("10.213.0.1[45]", ["10.213.0.14", "10.213.0.15"]),
            ("postgres*", ["10.213.0.11", "10.213.0.12", "10.213.0.13"]),
            ("master,replica", ["10.213.0.11", "10.213.0.12", "10.213.0.13"]),
        ])
    func patterns(pattern: String, expected: [String]) throws {
        #expect(try inventory.select(pattern) == expected)
    }

    @Test("a term that matches nothing is an error, not an empty selection")
    func typo() {
        #expect(throws: InventoryError.self) { try inventory.select("replcia") }
    }

    @Test("@file reads host names, one per line")
    func fromFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keel-limit-\(UUID().uuidString)").path
        try "10.213.0.12\n10.213.0.15\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try inventory.select("@\(path)") == ["10.213.0.12", "10.213.0.15"])
    }
}
