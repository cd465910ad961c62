import Foundation
import Keel
import KeelTestSupport
import Testing
import Yams

@testable import Playbooks

/// A YAML or INI value Keel writes goes through one function per format, which the templates call as filters.
@Suite("one quoting function per format")
struct FormatQuotingTests {
    static let hostile = [
        "a: b # c", "\"quoted\" and \\", "line\n- injected: true", "tab\there", "nul\u{0}", "nel\u{85}x",
        "ls\u{2028}ps\u{2029}", "*alias", "&anchor", "!tag", "%directive", "yes", "~", "0777", "",
        "{{ jinja }}", "[1, 2]", "{a: 1}", "- item", "'single'", "del\u{7F}", "ünïcödé ✓",
    ]

    @Test("a YAML string reads back exactly, whatever it holds", arguments: hostile)
    func yamlRoundTrip(value: String) throws {
        let document = try #require(try Yams.load(yaml: "key: \(yamlQuote(value))\nafter: 1\n") as? [String: Any])
        #expect(document["key"] as? String == value)
        #expect(document["after"] as? Int == 1, "nothing spilled into another key")
        #expect(!yamlQuote(value).contains("\n"))
    }

    @Test("an open-shaped value (Patroni's dynamic configuration, tags) quotes its keys and strings the same way")
    func yamlBlocks() throws {
        let value = JSONValue.object([
            "a: b": .string("x\ny: z"), "list": .array([.string("# c"), .integer(3)]),
            "nested": .object(["k": .bool(true)]),
        ])
        let document = try #require(try Yams.load(yaml: "top:\n" + value.yaml(indent: 2)) as? [String: Any])
        let top = try #require(document["top"] as? [String: Any])
        #expect(top["a: b"] as? String == "x\ny: z")
        #expect((top["list"] as? [Any])?.first as? String == "# c")
        #expect((top["nested"] as? [String: Any])?["k"] as? Bool == true)
    }

    @Test(
        "an INI value is written as it is, or refused when it would not read back the same",
        arguments: ["two\nlines", "cr\r", "nul\u{0}", " leading", "trailing ", "del\u{7F}"])
    func iniRefused(value: String) {
        #expect(throws: INIValueError.self) { try iniValue(value) }
    }

    @Test("a template that writes a value its format cannot hold fails with the template's line")
    func filterError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-ini-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "[global]\nkey = {{ value|ini }}\n".write(
            to: directory.appendingPathComponent("x.ini"), atomically: true, encoding: .utf8)
        let library = TemplateLibrary(directory: directory.path)
        #expect(try library.render("x.ini", context: ["value": "ok"]) == "[global]\nkey = ok\n")
        #expect {
            try library.render("x.ini", context: ["value": "a\nstanza = evil"])
        } throws: { error in
            "\(error)".contains("x.ini:2") && "\(error)".contains("control character or line break")
        }
    }

    @Test("every value in the YAML and INI templates goes through its format's filter")
    func templatesUseFilters() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("templates/cluster")
        let formats = [
            "patroni/patroni.yml": "yaml", "pgbouncer/pgbouncer.ini": "ini", "pgbouncer/listen.ini": "ini",
            "pgbackrest/database.conf": "ini", "pgbackrest/repository.conf": "ini",
        ]
        // Blocks rendered whole by JSONValue.yaml, and the loop's counter.
        let whole: Set = ["dcs", "tags", "local_parameters", "forloop.counter"]
        let expression = try NSRegularExpression(pattern: #"\{\{\s*([^}|]+?)\s*(\|\s*(\w+))?\s*\}\}"#)
        var unfiltered: [String] = []
        for (name, filter) in formats {
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                let content = line.replacingOccurrences(of: #"^(\{%[^%]*%\})+"#, with: "", options: .regularExpression)
                if content.hasPrefix("#") || content.hasPrefix(";") { continue }
                for match in expression.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let variable = String(line[Range(match.range(at: 1), in: line)!])
                    let used = Range(match.range(at: 3), in: line).map { String(line[$0]) }
                    if used != filter && !whole.contains(variable) {
                        unfiltered.append("\(name):\(index + 1) \(variable)")
                    }
                }
            }
        }
        #expect(unfiltered.isEmpty, "\(unfiltered)")
    }

    @Test("the rendered patroni.yml reads back as the model says")
    func patroniReadsBack() throws {
        let (model, directory) = try ClusterModelTests().load()
        let host = try ClusterModelTests.host("10.213.0.11", directory)
        let text = try ClusterModelTests.rendered(
            PatroniNodeRole(host: host, model: model, wheel: []).configuration, "/etc/patroni/patroni.yml", on: host)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let postgresql = try #require(document["postgresql"] as? [String: Any])
        #expect(document["scope"] as? String == model.name)
        #expect(postgresql["data_dir"] as? String == model.dataDirectory)
        #expect(postgresql["bin_dir"] as? String == model.binDirectory)
        #expect(postgresql["pg_hba"] as? [String] == model.memberHBA)
        let logins = try #require(postgresql["authentication"] as? [String: [String: String]])
        #expect(logins["replication"]?["username"] == model.logins.replication.name)
        #expect(logins["superuser"]?["sslmode"] == "verify-full")
    }
}
