import Foundation
import KeelTestSupport
import Testing

@testable import Keel

@Suite("variables files in YAML's plain subset, read without libyaml")
struct YAMLSubsetReaderTests {
    /// Documents in the subset, each read the same as libyaml composes it.
    static let supported = [
        "a: 1\nb: yes\nc: ~\nd: 0755\ne: 1:30\nf: 1.5\ng: -1\nh: text with spaces  \ni: 'quoted # not a comment'\n",
        "# a comment\n\nkey:   # after the key\n  nested: value # after a value\n  other: \"x\"\n\nnext: 2\n",
        "list:\n- a\n- b\nafter: 1\n",
        "list:\n  - a\n  -   b\n  -\n  - c: 1\n    d: 2\n  - e:\n      f: 3\n  - g:\n    - h\n",
        "params:\n  - { option: \"max_connections\", value: \"100\" }\n  - {option: work_mem, value: 4MB, extra: [1, 2, {x: y}]}\n",
        "flows: [a, 'b', \"c\", [], {}, [d, [e]], {k: v, 'q': \"w\", n: }]\nempty: []\n",
        "\"quoted key\": 1\n'single': 'it''s'\nescapes: \"a\\\\b \\\"c\\\" d\\/e\\nf\\tg\"\n",
        "url: http://example.com:8080/x?y=z#frag\nhash: a#b\ncolon: a:b\ndash: -x\nbrackets: a[1]{2}\n",
        "unicode: \"naïve ünïcode 日本\"\nplain: ünïcode\n",
        "deep:\n  a:\n    b:\n      c:\n        - d\n        - e: [f]\n",
        "nulls:\nafter_null: 1\nseq:\n  -\n  - x\n",
        "  indented: 1\n  root: 2\n",
        "---\n# Ansible's files open and close the document\na: 1\n...\n# done\n",
        "--- # opened\na: [1]\n",
        "folded: \"one\n  two  \n\n   three\\\n   four \\\n\n    five\"\nsingle: 'it''s\n  folded'\nlist:\n  - \"a\n    b\"  # after\n  - c\n",
        "below:\n  'a value alone on its line'  # a comment\nplain:\n  text\nflow:\n  [1, 2]\nnested:\n  key:\n    \"x\"\n  list:\n    -\n      y\n",
        "key with spaces: value\nnumbers: [1, -2, 0x1F, 1e3, .5]\nbools: [yes, No, on, OFF, true]\n",
    ]

    /// Documents beyond the subset (or not YAML): left to libyaml.
    static let unsupported = [
        "a: &anchor 1\nb: *anchor\n", "a: !!str 1\n", "a: |\n  text\n", "a: >\n  text\n", "a: plain\n  continued\n",
        "a:\n  plain\n  continued\n",
        "a: [1,\n  2]\n", "a: \"open\nclose\"\n", "a: \"never closed\n  b: 1\n", "<<: {a: 1}\n", "a: 1\na: 2\n",
        "a:\tb\n", "---\n---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n...\nb: 2\n", "--- a: 1\n",
        "%YAML 1.1\n---\na: 1\n", "- a\n- b\n", "a: b: c\n", "? a\n: b\n", "a: [1, 2,]\n", "a: \"\\x41\"\n",
        "a:\n  b: 1\n c: 2\n", "a: 1\r\nb: 2\r\n", "a: 1 # ok\n  b: 2\n", "a: - b\n", "{a: 1}\n", "a: 'x'y\n",
        "a: [b: c]\n", "list:\n- - a\n", "",
    ]

    private func libYAML(_ text: String) -> Result<YAMLNode?, YAMLComposer.Failure> {
        Result { () throws(YAMLComposer.Failure) in
            try YAMLComposer(budget: 1_000_000, nodeDepth: 1).composeWithLibYAML(text)
        }
    }

    /// Both nodes alike: content, plainness and lines down to the values.
    private func same(_ a: YAMLNode?, _ b: YAMLNode?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard a.line == b.line else { return false }
        switch (a.content, b.content) {
        case (.scalar(let x, let p), .scalar(let y, let q)): return x == y && p == q
        case (.value(let x), .value(let y)): return x == y
        case (.sequence(let x), .sequence(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.mapping(let x), .mapping(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
        default: return false
        }
    }

    @Test("the subset is read as libyaml composes it, with the same lines", arguments: supported)
    func supportedAsLibYAML(_ text: String) throws {
        let fast = try YAMLSubsetReader.read(text, maxDepth: 256)
        let expected = try libYAML(text).get()
        #expect(same(fast, expected), "\(fast)\nlibyaml: \(String(describing: expected))")
    }

    @Test("anything beyond the subset is left to libyaml", arguments: unsupported)
    func unsupportedLeftToLibYAML(_ text: String) {
        #expect(throws: YAMLSubsetReader.Unsupported.self) { try YAMLSubsetReader.read(text, maxDepth: 256) }
    }

    @Test(
        "every release's vars files (up to 2.2.0) and the lab's variables are in the subset, read as libyaml reads them"
    )
    func realFiles() throws {
        var texts = try ReferenceFiles.releases.flatMap { release in
            try ReferenceFiles.variableFiles(release).map { try ReferenceFiles.text(release, $0) }
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        texts.append(
            try String(
                contentsOf: repository.appendingPathComponent("inventory/lab/group_vars/all.yml"), encoding: .utf8))
        for text in texts {
            let fast = try YAMLSubsetReader.read(text, maxDepth: 256)
            #expect(same(fast, try libYAML(text).get()))
        }
    }

    @Test("a long quoted line full of escapes or doubled quotes is read in linear time")
    func escapesAreLinear() throws {
        let escapes = "a: \"" + String(repeating: "\\n", count: 350_000) + "\"\n"
        let quotes = "a: '" + String(repeating: "''", count: 500_000) + "'\n"
        let cases = [
            (escapes, String(repeating: "\n", count: 350_000)), (quotes, String(repeating: "'", count: 500_000)),
        ]
        for (text, expected) in cases {
            let started = JinjaBoundsTests.threadTime()
            let node = try YAMLSubsetReader.read(text, maxDepth: 256)
            #expect(JinjaBoundsTests.threadTime() - started < .seconds(2))
            #expect(node.value == .map(["a": .string(expected)]))
        }
    }

    @Test("nesting deeper than the bound is left to libyaml, which refuses it")
    func depthBound() {
        let deep = "a: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "\n"
        #expect(throws: YAMLSubsetReader.Unsupported.self) { try YAMLSubsetReader.read(deep, maxDepth: 256) }
        #expect(throws: YAMLComposer.Failure.self) { try YAMLComposer.compose(deep, budget: 100_000, nodeDepth: 1) }
    }

    @Test("whatever the subset reader accepts of 30 000 mangled documents, libyaml reads the same")
    func mangledDocumentsAgree() throws {
        var random = SplitMix64(seed: 20_261_123)
        let alphabet = Array(" :-#'\"[]{},\n\\xy1".utf8)
        var accepted = 0
        for round in 0..<30_000 {
            var bytes = Array(Self.supported[round % Self.supported.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes.remove(at: position)
                case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
                default: bytes[position] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let fast = try? YAMLSubsetReader.read(text, maxDepth: 256) else { continue }
            accepted += 1
            switch libYAML(text) {
            case .success(let expected):
                #expect(same(fast, expected), "\(text.debugDescription)")
            case .failure(let failure):
                Issue.record("accepted what libyaml refuses (\(failure.message)): \(text.debugDescription)")
            }
        }
        #expect(accepted > 5_000, "the mangled documents the subset reader accepted: \(accepted)")
    }
}

/// A small seeded generator, so that the mangled documents are the same on every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
