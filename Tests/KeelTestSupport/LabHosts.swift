import Testing

/// The lab hosts a test runs on, stated by the test: before it, exactly `h1`…`hN` are up (on fresh disks when asked),
/// answering SSH and reaching each other, whatever earlier tests left; after it, a host that is down or does not
/// answer is reported with the end of its console log rather than left to fail the next test.
public struct LabHosts: TestTrait, TestScoping {
    let count: Int
    let fresh: Bool

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Lab.run(fresh ? "reset" : "up", "\(count)")
        try await function()
        let (status, output) = try await Shell.captureAsync(Lab.script, ["check", "\(count)"])
        if status != 0 { Issue.record("a lab host dropped out during the test:\n\(output)") }
    }
}

extension Trait where Self == LabHosts {
    /// Runs the test on lab hosts `h1`…`h<hosts>`, on fresh disks with an empty shared directory when `fresh`.
    public static func lab(hosts: Int, fresh: Bool = false) -> Self { LabHosts(count: hosts, fresh: fresh) }
}
