import ArgumentParser
import Examples
import Foundation
import Keel

struct PlaybooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playbooks", abstract: "List the playbooks keel apply can run.")

    func run() async throws {
        for playbook in Examples.all { Terminal.write("\(playbook.name)\t\(playbook.summary)\n") }
    }
}
