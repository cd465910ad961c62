import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("when a member counts as in service")
struct PatroniInServiceTests {
    /// Runs `inService` with a stand-in curl on PATH: `/primary` answers 200 when `primary`, and `/patroni` prints
    /// `status`, as a member's Patroni would.
    private func inService(primary: Bool, status: String) throws -> Bool {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("keel-curl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        try Shell.writeExecutable(
            bin + "/curl",
            """
            #!/bin/sh
            for url; do :; done
            case "$url" in
                */primary) exit \(primary ? 0 : 22) ;;
                */patroni) printf '%s\\n' \(shellQuote(status)) ;;
                *) exit 7 ;;
            esac

            """)
        let (model, _) = try ClusterModelTests().load(vars: ClusterModelTests.vars + "\ntls_cert_generate: false\n")
        let command = PatroniAPI(model, member: "10.213.0.12").inService
        return try Shell.capture("/bin/sh", ["-c", command], environment: ["PATH": bin + ":/usr/bin:/bin"]).status == 0
    }

    @Test("the running primary and a streaming replica are; a stopped former primary and a starting replica are not")
    func states() throws {
        #expect(try inService(primary: true, status: #"{"state": "running", "role": "primary"}"#))
        #expect(
            try inService(
                primary: false, status: #"{"state": "running", "role": "replica", "replication_state": "streaming"}"#))
        // Patroni names the role the data directory last had while PostgreSQL is down or being rewound.
        #expect(try !inService(primary: false, status: #"{"state": "stopped", "role": "primary"}"#))
        #expect(try !inService(primary: false, status: #"{"state": "starting", "role": "replica"}"#))
    }

    @Test("an answer cut off by a member's timeout is dropped whole: the next member's answer is read alone")
    func anyMemberTakesWholeAnswers() throws {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("keel-curl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        // The first member starts its answer, then times out (curl's exit 28); the second answers whole.
        try Shell.writeExecutable(
            bin + "/curl",
            """
            #!/bin/sh
            for url; do :; done
            case "$url" in
                *10.213.0.11*) printf '{"loop_wa'; exit 28 ;;
                *) printf '{"loop_wait": 10}' ;;
            esac

            """)
        let (model, _) = try ClusterModelTests().load(vars: ClusterModelTests.vars + "\ntls_cert_generate: false\n")
        let read = try Shell.capture(
            "/bin/sh", ["-c", PatroniAPI.fromAnyMember(model, "/config")], environment: ["PATH": bin + ":/usr/bin:/bin"]
        )
        #expect(read.output == #"{"loop_wait": 10}"# + "\n", "\(read)")
    }
}
