import Foundation
import KeelLint

// Checks the repository at the current folder (or the one given) against the project's structure rules; prints each
// violation as `path:line: rule: what to do` and exits 1 when there is one.
let root = CommandLine.arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath
let violations = ProjectRules.violations(in: SourceTree(root: root))
for violation in violations {
    print(violation)
}
if !violations.isEmpty {
    print("\(violations.count) structure rule violation(s)")
    exit(1)
}
