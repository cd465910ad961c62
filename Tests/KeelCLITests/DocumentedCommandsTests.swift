import Foundation
import Testing

@testable import keel

/// Every `keel …` line of the README's and `docs/`'s shell blocks parses as `keel` would parse it: its subcommand,
/// options and their values, and the checks made before any host is contacted. Written notation is read as
/// such: `[--json | --watch]` as its first choice, `INV` as a path, `…` dropped.
@Suite("the documented commands")
struct DocumentedCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each `keel` line of a shell block: (file:line, its words).
    static func documented() throws -> [(place: String, words: [String])] {
        let documents =
            ["README.md"]
            + (try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var found: [(String, [String])] = []
        for document in documents {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            var inShell = false
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                if line.hasPrefix("```") {
                    inShell = !inShell && line == "```sh"
                    continue
                }
                guard inShell else { continue }
                let command = line.components(separatedBy: "  #").first ?? line
                let words = Self.words(command)
                guard let first = words.first, first == "keel" || first == "$keel" else { continue }
                found.append(("\(document):\(index + 1)", Array(words.dropFirst())))
            }
        }
        return found
    }

    /// `line`'s words as the shell splits them (quotes kept together, `$(…)` as one word), its notation read:
    /// an optional part's first choice, placeholders as values, `…` dropped.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var depth = 0
        for character in line.replacingOccurrences(of: " | ", with: "|") {
            switch character {
            case "\"",
                "'" where depth == 0:
                if quote == character {
                    quote = nil
                } else if quote == nil {
                    quote = character
                } else {
                    word.append(character)
                }
            case "(" where quote != nil || word.hasSuffix("$"):
                depth += 1
                word.append(character)
            case ")" where depth > 0:
                depth -= 1
                word.append(character)
            case " " where quote == nil && depth == 0:
                if !word.isEmpty { words.append(word) }
                word = ""
            default:
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words.compactMap { word in
            var word = word
            if word.hasPrefix("[") { word.removeFirst() }
            if word.hasSuffix("]") { word.removeLast() }
            word = String(word.split(separator: "|").first ?? "")
            return word.isEmpty || word == "…" ? nil : word
        }
    }

    @Test("each one parses, with what it names (an option's value, a subcommand)")
    func parse() throws {
        let commands = try Self.documented()
        #expect(commands.count >= 40, "\(commands.count) documented commands")
        for (place, words) in commands {
            #expect(throws: Never.self, "\(place): keel \(words.joined(separator: " "))") {
                _ = try KeelCommand.parseAsRoot(words)
            }
        }
    }

    @Test("a command with a mistake does not parse: the check can fail")
    func mistakes() {
        for words in [["deploy", "-i", "x", "--chek"], ["switchover", "--to"], ["restart-everything"]] {
            #expect(throws: (any Error).self, "\(words)") { _ = try KeelCommand.parseAsRoot(words) }
        }
    }
}
