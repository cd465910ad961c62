import Foundation

/// Runs `body` and, when it took at least three seconds, prints `⏱ label: N s`: a suite's log then shows where its
/// time went (the lab tests' keel runs and lab actions), for the suite's time budget.
public func timed<T>(_ label: @autoclosure () -> String, _ body: () async throws -> T) async rethrows -> T {
    let start = ContinuousClock.now
    let result = try await body()
    let elapsed = ContinuousClock.now - start
    if elapsed >= .seconds(3) {
        print("⏱ \(label()): \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))")
    }
    return result
}
