import Foundation
import Testing

@testable import Keel

/// The hostile inputs of the bad-input review: each is refused, or read, within two seconds of processor time with a
/// message naming the variable and its line, never a signal.
@Suite("Jinja in variables is bounded: depth, size, work and integers")
struct JinjaBoundsTests {
    /// Reads `name` from `variables` (each set at `vars.yml:` its index + 1) and returns the error's text, or nil
    /// when it was read; fails when it took two seconds or more.
    private func refusal(_ name: String, _ variables: [(String, String)]) -> String? {
        var set: [String: Variable] = [:]
        for (line, (key, value)) in variables.enumerated() {
            set[key] = Variable(.string(value), at: SourceLocation(file: "vars.yml", line: line + 1))
        }
        let reader = VariableReader(host: "h1", variables: set)
        let started = Self.threadTime()
        defer { #expect(Self.threadTime() - started < .seconds(2), "\(name) took \(Self.threadTime() - started)") }
        do {
            _ = try reader.lookup([name])
            return nil
        } catch {
            return "\(error.location.map { "\($0): " } ?? "")\(error.message)"
        }
    }

    private func refusal(_ value: String) -> String? { refusal("v", [("v", value)]) }

    /// The processor time this thread has used: what a read costs, whatever else the machine runs meanwhile.
    static func threadTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The nested values, by a short name (the test log names each case; the values themselves are up to 200 KB).
    private static let nested: [String: String] = [
        "10 000 parentheses": "{{ " + String(repeating: "(", count: 10_000) + "1"
            + String(repeating: ")", count: 10_000)
            + " }}",
        "1 000 parentheses": "{{ " + String(repeating: "(", count: 1_000) + "1" + String(repeating: ")", count: 1_000)
            + " }}",
        "10 000 not": "{{ " + String(repeating: "not ", count: 10_000) + "true }}",
        "10 000 [": "{{ " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + " }}",
        "10 000 unary minus": "{{ " + String(repeating: "-", count: 10_000) + "1 }}",
        "10 000 filters": "{{ 'lab'" + String(repeating: " | lower", count: 10_000) + " }}",
        "400 filters": "{{ 'lab'" + String(repeating: " | lower", count: 400) + " }}",
        "400 concatenations": "{{ 1" + String(repeating: " ~ 1", count: 400) + " }}",
        "10 000 nested if": String(repeating: "{% if true %}", count: 10_000) + "x"
            + String(repeating: "{% endif %}", count: 10_000),
        "100 nested if": String(repeating: "{% if true %}", count: 100) + "x"
            + String(repeating: "{% endif %}", count: 100),
    ]

    @Test(
        "nesting far beyond what a variable needs is refused with its variable's name and line",
        arguments: nested.keys.sorted())
    func deepNesting(name: String) throws {
        let message = refusal(try #require(Self.nested[name]))
        #expect(message?.hasPrefix("vars.yml:1: v for host h1 cannot be evaluated: ") == true, "\(message ?? "read")")
    }

    @Test("nesting a real variable uses is read")
    func shallowNesting() throws {
        #expect(
            refusal("{{ ((((((1 + 2)))))) | string | lower }}{% if true %}{% if 1 %}x{% endif %}{% endif %}") == nil)
    }

    @Test("60 000 expressions in one value are read in linear time")
    func manyExpressions() throws {
        let value = String(repeating: "{{ 'l' }}", count: 60_000)
        #expect(refusal(value) == nil)
    }

    @Test("variables that each refer to the one before twice are evaluated once each, not 2^24 times")
    func exponentialTime() {
        var variables = [("p0", "x")]
        for level in 1...24 {
            variables.append(("p\(level)", "{{ p\(level - 1) if p\(level - 1) else p\(level - 1) }}"))
        }
        #expect(refusal("p24", variables) == nil)
    }

    @Test("a value doubled 24 times is refused for its size, naming the variable read")
    func exponentialSize() {
        var variables = [("p0", "x")]
        for level in 1...24 { variables.append(("p\(level)", "{{ p\(level - 1) ~ p\(level - 1) }}")) }
        let message = refusal("p24", variables)
        #expect(message?.hasPrefix("vars.yml:25: p24 for host h1 cannot be evaluated") == true, "\(message ?? "read")")
        #expect(message?.contains("more than \(JinjaBudget.maxLength)") == true)
    }

    @Test("replace that would amplify a text to gigabytes is refused before it is built")
    func replaceAmplification() {
        let thousand = "'" + String(repeating: "a", count: 1_000) + "'"
        let method = "{{ \(thousand).replace('a', \(thousand)).replace('a', \(thousand)) }}"
        let filter = "{{ \(thousand) | replace('a', \(thousand)) | replace('a', \(thousand)) }}"
        for value in [method, filter] {
            #expect(refusal(value)?.contains("more than \(JinjaBudget.maxLength)") == true)
        }
    }

    @Test("integer arithmetic beyond 64 bits is an error, never a wrap into a valid-looking value")
    func integerOverflow() {
        #expect(refusal("{{ 9223372036854775807 * 2 + 5434 }}")?.contains("beyond 64 bits") == true)
        #expect(refusal("{{ -(-9223372036854775807 - 1) }}")?.contains("beyond 64 bits") == true)
        #expect(refusal("{{ (-9223372036854775807 - 1) // -1 }}")?.contains("beyond 64 bits") == true)
        #expect(refusal("{{ 9223372036854775807 + 1 }}")?.contains("beyond 64 bits") == true)
    }

    @Test(
        "integer division and modulo as Python computes them, at the edges too",
        arguments: [
            ("{{ 1 % 9223372036854775807 }}", InventoryValue.int(1)),
            ("{{ 9223372036854775807 // 1 }}", .int(9_223_372_036_854_775_807)),
            ("{{ -7 // 2 }}", .int(-4)), ("{{ 7 // -2 }}", .int(-4)), ("{{ 7 // 2 }}", .int(3)),
            ("{{ -7 % 3 }}", .int(2)), ("{{ 7 % -3 }}", .int(-2)), ("{{ -6 % 3 }}", .int(0)),
        ])
    func pythonArithmetic(text: String, expected: InventoryValue) throws {
        let reader = VariableReader(
            host: "h1", variables: ["v": Variable(.string(text), at: SourceLocation(file: "vars.yml", line: 1))])
        #expect(try reader.lookup(["v"])?.variable.value == expected, "\(text)")
    }
}
