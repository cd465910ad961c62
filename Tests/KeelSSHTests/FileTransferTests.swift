import Foundation
import KeelCore
import KeelSSH
import KeelTestSupport
import Testing

/// One test at a time: two of them count the staging files every upload through `become` leaves in /tmp.
@Suite("SFTP uploads and downloads against a real sshd", .serialized)
struct FileTransferTests {
    @Test("a 64 MB upload arrives with the same checksum, mode set, no temporary file left")
    func largeUpload() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
            let bytes = [UInt8](random.readData(ofLength: 64 << 20))
            #expect(bytes.count == 64 << 20)
            let local = server.freshPath("local")
            try Data(bytes).write(to: URL(fileURLWithPath: local))
            let expected = try Shell.run("/usr/bin/sha256sum", [local]).prefix(64)

            let remoteDirectory = try await connection.run("mktemp -d").stdoutText.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let remote = remoteDirectory + "/big.bin"
            try await connection.upload(bytes, to: remote, mode: 0o640, timeout: .seconds(120))
            let check = try await connection.run("sha256sum \(remote); stat -c %a \(remote); ls -A \(remoteDirectory)")
            let lines = check.stdoutText.split(separator: "\n")
            #expect(lines.first?.prefix(64) == expected)
            #expect(lines.dropFirst().first == "640")
            #expect(lines.dropFirst(2).map(String.init) == ["big.bin"])
            _ = try await connection.run("rm -rf \(remoteDirectory)")
        }
    }

    @Test("an upload replaces an existing file atomically and a download reads it back")
    func replaceAndDownload() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let directory = try await connection.run("mktemp -d").stdoutText.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let path = directory + "/config"
            try await connection.upload(Array("first\n".utf8), to: path)
            try await connection.upload(Array("second ✓\n".utf8), to: path, mode: 0o600)
            #expect(try await connection.download(path) == Array("second ✓\n".utf8))
            #expect(try await connection.run("stat -c %a \(path)").stdoutText == "600\n")
            let missing = await sshError { _ = try await connection.download(directory + "/absent") }
            #expect(missing?.code == .transferFailed)
            #expect(missing?.message.contains("no such file") == true)
            _ = try await connection.run("rm -rf \(directory)")
        }
    }

    @Test("with become, an upload lands owned by the requested user", .enabled(if: TestUser.canBecomeRoot))
    func uploadAsRoot() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let path = "/root/keel-upload-test-\(UUID().uuidString.prefix(8))"
            try await connection.upload(
                Array("secret\n".utf8), to: path, mode: 0o600, owner: "root", group: "root", become: Become())
            let check = try await connection.run(
                "stat -c '%U %a' \(path); cat \(path); rm -f \(path); ls -A /tmp | grep -c '^\\.keel-' || true",
                become: Become())
            #expect(check.stdoutText == "root 600\nsecret\n0\n")
        }
    }

    @Test(
        "with become, an upload that cannot be placed leaves no copy beside the target nor in /tmp",
        .enabled(if: TestUser.canBecomeRoot))
    func failedPlacementLeavesNothing() async throws {
        try await TestSSHServer.with { server in
            let connection = try await server.connect()
            let directory = try await connection.run("mktemp -d", become: Become()).stdoutText.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let failed = await sshError {
                try await connection.upload(
                    Array("secret\n".utf8), to: directory + "/file", mode: 0o600, owner: "no-such-user-keel",
                    become: Become())
            }
            #expect(failed?.code == .transferFailed)
            let left = try await connection.run(
                "ls -A \(directory) | wc -l; ls -A /tmp | grep -c '^\\.keel-' || true; rm -rf \(directory)",
                become: Become())
            #expect(left.stdoutText == "0\n0\n", "\(left.stdoutText)")
        }
    }
}
