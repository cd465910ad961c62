import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

/// What a flow reads before it changes anything, run for real against hosts laid out on the local machine
/// (``RootedTransport``): a half-added member, an interrupted dpkg and an earlier run's package job are refused,
/// named, with what to do; a finished member is not.
@Suite("hosts that cannot take a flow's steps")
struct HostReadinessTests {
    /// A finished member's files: Patroni's unit and a dpkg status of installed packages only.
    func host() throws -> RootedTransport {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-ready-\(UUID().uuidString)")
        let host = try RootedTransport(root: root.path)
        try host.write("[Unit]\n", to: PatroniNodeRole.unitFile)
        try host.write(
            "Package: postgresql-15\nStatus: install ok installed\n\nPackage: etcd\nStatus: deinstall ok config-files\n",
            to: "/var/lib/dpkg/status")
        try FileManager.default.createDirectory(
            atPath: root.path + "/var/lib/dpkg/updates", withIntermediateDirectories: true)
        return host
    }

    func problems(_ host: RootedTransport) async throws -> [HostReadiness.Problem] {
        let (model, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        let readiness = HostReadiness.databaseAndRepository(model)
        let found = await readiness.problems(inventory: inventory, fleet: Fleet(connector: { _ in host }))
        return found[model.databaseHosts[0]] ?? []
    }

    @Test("a finished member can take steps")
    func finished() async throws {
        #expect(try await problems(try host()).isEmpty)
    }

    @Test("a member without Patroni's unit is a half-added one; refused with what to do")
    func halfAdded() async throws {
        let host = try host()
        try FileManager.default.removeItem(atPath: host.root + PatroniNodeRole.unitFile)
        let found = try await problems(host)
        #expect(found.map(\.description) == ["Patroni is not installed (a half-added member)"])
        let (model, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        do {
            try await HostReadiness.databaseAndRepository(model).refuseUnready(
                flow: "restore", inventory: inventory, fleet: Fleet(connector: { _ in host }))
            Issue.record("not refused")
        } catch {
            let text = error.description
            #expect(
                text.hasPrefix("restore changes nothing: \(model.databaseHosts[0]) cannot take its steps"), "\(text)")
            #expect(text.contains("finish it with keel add-node"), "\(text)")
            #expect(
                text.contains("take \(model.databaseHosts.joined(separator: ", ")) out of the inventory"), "\(text)")
        }
    }

    @Test("dpkg interrupted: a file in its updates journal, or a package half configured")
    func dpkgInterrupted() async throws {
        let journal = try host()
        try journal.write("", to: "/var/lib/dpkg/updates/0001")
        #expect(try await problems(journal).map(\.description) == ["dpkg was interrupted: a package is half installed"])
        let halfConfigured = try host()
        try halfConfigured.write(
            "Package: postgresql-15\nStatus: install ok half-configured\n", to: "/var/lib/dpkg/status")
        #expect(try await problems(halfConfigured).count == 1)
    }

    @Test("an earlier run's package job without its exit status is running; one with it has ended")
    func jobRunning() async throws {
        let host = try host()
        try host.write("Unpacking …\n", to: "/run/keel/jobs/keel-job-abc.out")
        #expect(
            try await problems(host).map(\.description)
                == ["a package job of an earlier keel run is still running (keel-job-*)"])
        try host.write("0\n", to: "/run/keel/jobs/keel-job-abc.rc")
        #expect(try await problems(host).isEmpty)
    }

    @Test("packages settled: nothing to do when settled; else the wait, then dpkg --configure -a as a detached job")
    func settled() throws {
        let (_, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "pg1", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let settled = PackagesSettled()
        #expect(try settled.changes(from: ProbeOutput(text: "package-job=none\ndpkg=whole"), on: context).isEmpty)
        let interrupted = try settled.changes(
            from: ProbeOutput(text: "package-job=none\ndpkg=interrupted"), on: context)
        #expect(interrupted.map(\.summary) == ["finish dpkg's interrupted work (dpkg --configure -a)"])
        #expect(interrupted[0].shown.count == 1 && interrupted[0].shown[0].contains("dpkg --force-confdef"))
        let running = try settled.changes(from: ProbeOutput(text: "package-job=running\ndpkg=whole"), on: context)
        #expect(
            running.map(\.summary) == [
                "wait for the package job an earlier run left running, then finish dpkg's interrupted work (dpkg --configure -a)"
            ])
        #expect(running[0].shown.count == 2)
    }
}
