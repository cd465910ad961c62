import Foundation
import Testing

@testable import Keel

@Suite("Plain YAML scalars typed as PyYAML (YAML 1.1) types them")
struct YAMLScalarTests {
    @Test(
        "nulls, booleans, integers in every base, sexagesimals, floats; anything else stays text",
        arguments: [
            ("", InventoryValue.null), ("~", .null), ("Null", .null), ("yes", .bool(true)), ("Off", .bool(false)),
            ("TRUE", .bool(true)), ("y", .string("y")), ("42", .int(42)), ("-7", .int(-7)), ("+3", .int(3)),
            ("1_000", .int(1000)), ("0755", .int(493)), ("0x1F", .int(31)), ("0b101", .int(5)), ("0", .int(0)),
            ("1:30", .int(90)), ("06:30", .string("06:30")), ("1:60", .string("1:60")), ("089", .string("089")),
            ("1.5", .double(1.5)), ("-.5", .double(-0.5)), ("6.02e+23", .double(6.02e23)), ("1e5", .string("1e5")),
            ("1.2.3", .string("1.2.3")), ("16MB", .string("16MB")), ("4.1.5", .string("4.1.5")),
            ("10.213.0.11", .string("10.213.0.11")), ("Sun *-*-* 06:30", .string("Sun *-*-* 06:30")),
            ("-.inf", .double(-.infinity)), ("_1", .string("_1")), ("--5", .string("--5")),
            ("0x-1F", .string("0x-1F")), ("1:+5", .string("1:+5")),
        ])
    func typed(text: String, expected: InventoryValue) {
        #expect(YAMLScalar.value(text) == expected)
    }

    @Test("quoted scalars stay strings, plain ones are typed")
    func quotedAndFast() throws {
        let yaml = "a: \"0755\"\nb: 0755\nc: 'yes'\nd: yes\n"
        let node = try #require(try YAMLDocument.parse(yaml, file: "x.yml", nodeDepth: 1))
        let variables = try YAMLDocument.variables(in: node, file: "x.yml", context: "x")
        #expect(variables["a"]?.value == .string("0755") && variables["b"]?.value == .int(493))
        #expect(variables["c"]?.value == .string("yes") && variables["d"]?.value == .bool(true))
        if case .double(let nan) = YAMLScalar.value(".nan") { #expect(nan.isNaN) } else { Issue.record(".nan") }
    }
}
