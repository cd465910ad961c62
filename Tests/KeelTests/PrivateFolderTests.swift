import Foundation
import Testing

@testable import Keel

/// The folders Keel keeps private on this machine (the keeper's, the facts'): made 0700, and refused when they or a
/// folder above them could be swapped by another account.
@Suite("private folders")
struct PrivateFolderTests {
    let base: String

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("keel-private-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        chmod(base, 0o755)
    }

    @Test("made 0700 when missing; a link, a folder open to others, or one under a folder others may write, refused")
    func checked() throws {
        let made = base + "/a/keel/facts"
        try PrivateFolder.prepare(made)
        var status = stat()
        #expect(lstat(made, &status) == 0 && status.st_mode & 0o777 == 0o700)

        chmod(made, 0o755)
        #expect(throws: PrivateFolderError.self) { try PrivateFolder.prepare(made) }
        chmod(made, 0o700)

        let linked = base + "/b"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: base + "/a")
        #expect(throws: PrivateFolderError.self) { try PrivateFolder.prepare(linked + "/keel/facts") }

        // Under a folder anyone may write (not sticky): another account could rename the folders below.
        let open = base + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        chmod(open, 0o777)
        #expect(throws: PrivateFolderError.self) { try PrivateFolder.prepare(open + "/keel/facts") }
        // A sticky one (as /tmp) keeps each entry its owner's.
        chmod(open, 0o1777)
        try PrivateFolder.prepare(open + "/keel/facts")
    }

    @Test("a file is opened without following a link")
    func noFollow() throws {
        try PrivateFolder.prepare(base + "/c")
        try "secret".write(toFile: base + "/target", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: base + "/c/facts.json", withDestinationPath: base + "/target")
        #expect(PrivateFolder.open(base + "/c/facts.json") < 0)
    }
}
