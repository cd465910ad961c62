import Testing

@testable import Keel

@Suite("YAML documents composed from libyaml's events")
struct YAMLComposerTests {
    /// Composed into nodes, into values below the top, and into a value whole: the same value each way.
    private static let depths = [Int.max, 1, 0]

    private func value(_ text: String) throws -> InventoryValue? {
        let values = try Self.depths.map { try YAMLComposer.compose(text, budget: 10_000, nodeDepth: $0)?.value }
        #expect(Set(values).count == 1, "the same value at every depth: \(values)")
        return values[0]
    }

    private func failure(_ text: String) -> YAMLComposer.Failure? {
        let failures = Self.depths.map { depth -> YAMLComposer.Failure? in
            do throws(YAMLComposer.Failure) {
                _ = try YAMLComposer.compose(text, budget: 10_000, nodeDepth: depth)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            Set(failures.map { "\($0?.line ?? 0) \($0?.message ?? "none")" }).count == 1,
            "the same failure at every depth: \(failures)")
        return failures[0]
    }

    @Test("plain scalars are typed, quoted and tagged ones stay text; lines are kept; an empty file is no document")
    func scalars() throws {
        #expect(
            try value("a: yes\nb: '5'\nc: !!str 7\nd: 0755\n")
                == .map(["a": .bool(true), "b": .string("5"), "c": .string("7"), "d": .int(493)]))
        let node = try #require(try YAMLComposer.compose("a: 1\nb:\n  - x\n", budget: 100, nodeDepth: .max))
        guard case .mapping(let entries) = node.content else { Issue.record("not a mapping"); return }
        #expect(entries.map(\.key.line) == [1, 2] && entries[1].value.line == 3)
        #expect(try value("") == nil && (try value("# only a comment\n")) == nil)
    }

    @Test("merge keys merge, written keys win, earlier merged mappings win over later ones")
    func mergeKeys() throws {
        let text = """
            base: &base { port: 5432, user: app }
            extra: &extra { user: other, sslmode: require }
            one:
              <<: *base
              user: mine
            two:
              <<: [*extra, *base]
            deep:
              inner: &inner { port: 6432 }
            <<: *inner
            """
        let merged = try value(text)
        guard case .map(let map) = merged else { Issue.record("not a map: \(String(describing: merged))"); return }
        #expect(map["one"] == .map(["port": .int(5432), "user": .string("mine")]))
        #expect(map["two"] == .map(["port": .int(5432), "user": .string("other"), "sslmode": .string("require")]))
        #expect(map["port"] == .int(6432), "an anchor composed into a value merges into a node: \(map)")
        #expect(failure("a:\n  <<: 5\n")?.message.contains("merge key") == true)
    }

    @Test("refused with their line: a key twice, an unknown alias, a second document, deep nesting, bad syntax")
    func refusals() {
        let twice = failure("a: 1\nb: 2\na: 3\n")
        #expect(twice?.message == "the same key appears twice in one mapping: a" && twice?.line == 3)
        #expect(failure("a: *nowhere\n")?.message.contains("names no anchor") == true)
        #expect(failure("a: 1\n---\nb: 2\n")?.line == 2)
        #expect(
            failure(String(repeating: "[", count: 300) + String(repeating: "]", count: 300))?.message.hasPrefix(
                "nested too deeply") == true)
        let syntax = failure("a: [1, 2\nb: 3\n")
        #expect(syntax?.message.hasPrefix("invalid YAML: ") == true && syntax?.line == 2)
        #expect(failure("a: \u{1}\n")?.message.hasPrefix("cannot read this as YAML text") == true)
    }
}
