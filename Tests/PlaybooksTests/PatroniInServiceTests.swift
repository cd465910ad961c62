import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("when a member counts as in service")
struct PatroniInServiceTests {
    /// The exit status and output of `command` run against the test model's members (without TLS), with a stand-in
    /// curl on PATH that answers each request by its URL (the last argument, `$url`) with `cases`, shell `case` arms.
    private func withCurl(_ cases: String, _ command: (ClusterModel) -> String) throws -> (
        status: Int32, output: String
    ) {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("keel-curl-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        try Shell.writeExecutable(bin + "/curl", "#!/bin/sh\nfor url; do :; done\ncase \"$url\" in\n\(cases)\nesac\n")
        let (model, _) = try ClusterModelTests().load(vars: ClusterModelTests.vars + "\ntls_cert_generate: false\n")
        return try Shell.capture("/bin/sh", ["-c", command(model)], environment: ["PATH": bin + ":/usr/bin:/bin"])
    }

    /// Whether `inService` holds when `/patroni` prints `status`, as a member's Patroni would (any other request
    /// fails).
    private func inService(_ status: String) throws -> Bool {
        let cases = """
                */patroni) printf '%s\\n' \(shellQuote(status)) ;;
                *) exit 7 ;;
            """
        return try withCurl(cases) { PatroniAPI($0, member: "10.213.0.12").inService.text }.status == 0
    }

    @Test(
        "the running primary out of recovery and a streaming replica are; a stopped former primary, a primary still in recovery and a starting replica are not"
    )
    func states() throws {
        #expect(try inService(#"{"state": "running", "role": "primary", "xlog": {"location": 117737536}}"#))
        #expect(
            try inService(
                #"{"state": "running", "role": "replica", "xlog": {"received_location": 1}, "replication_state": "streaming"}"#
            ))
        // Patroni names the role the data directory last had while PostgreSQL is down or being rewound.
        #expect(try !inService(#"{"state": "stopped", "role": "primary"}"#))
        #expect(try !inService(#"{"state": "running", "role": "primary", "xlog": {"received_location": 1}}"#))
        #expect(try !inService(#"{"state": "starting", "role": "replica"}"#))
    }

    @Test("an answer cut off by a member's timeout is dropped whole: the next member's answer is read alone")
    func anyMemberTakesWholeAnswers() throws {
        // The first member starts its answer, then times out (curl's exit 28); the second answers whole.
        let cases = """
                *10.213.0.11*) printf '{"loop_wa'; exit 28 ;;
                *) printf '{"loop_wait": 10}' ;;
            """
        let read = try withCurl(cases) { PatroniAPI.fromAnyMember($0, "/config").text }
        #expect(read.output == #"{"loop_wait": 10}"# + "\n", "\(read)")
    }
}
