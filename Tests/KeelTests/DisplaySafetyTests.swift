import Foundation
import Keel
import Testing

/// Text from files and hosts reaches the terminal written out, never as control characters, and never a megabyte
/// at a time; an INI inventory holding a control byte is refused at its line.
@Suite("what reaches the terminal is safe and short")
struct DisplaySafetyTests {
    @Test("control and format characters are written out; newlines too, unless kept")
    func terminalSafety() {
        #expect(terminalSafe("lab\u{1B}]0;pwned\u{07}\u{1B}[2J") == "lab\\u{1B}]0;pwned\\u{07}\\u{1B}[2J")
        #expect(terminalSafe("a\u{202E}b\r\nc") == "a\\u{202E}b\\r\\nc")
        #expect(terminalSafe("one\ntwo\u{1B}", keepingNewlines: true) == "one\ntwo\\u{1B}")
        #expect(terminalSafe("naïve 日本 plain") == "naïve 日本 plain")
    }

    @Test("a value in a message is cut after 80 characters, its size named")
    func shortened() {
        let long = String(repeating: "a", count: 1_048_576)
        let shown = quotedForDisplay(long)
        #expect(shown == "'" + String(repeating: "a", count: 80) + "…' [1048576 bytes]")
        #expect(quotedForDisplay("h1\u{1B}") == "'h1\\u{1B}'")
    }

    @Test("a wrong type names the value cut short, not the whole megabyte")
    func wrongTypeShortened() throws {
        let long = String(repeating: "9x", count: 600_000)
        let reader = VariableReader(
            host: "h1", variables: ["postgresql_port": Variable(.string(long), at: SourceLocation(file: "v", line: 3))])
        do {
            _ = try reader.int(["postgresql_port"])
            Issue.record("accepted")
        } catch {
            #expect(error.message.count < 300, "\(error.message.prefix(300))")
            #expect(error.message.contains("[1200000 bytes]"))
        }
    }

    @Test("an INI inventory with a NUL or an escape byte is refused at its line")
    func controlBytesInINI() throws {
        for byte in ["\u{0}", "\u{1B}", "\u{7F}"] {
            let fixture = try InventoryFixture(["hosts.ini": "[db]\npg1 ansible_user=ro\(byte)ot\n"])
            let error = try #require(fixture.error(loading: "hosts.ini"))
            #expect(error.location?.line == 2)
            #expect(error.message.hasPrefix("the line holds the control character U+00"), "\(error.message)")
        }
        let tabs = try InventoryFixture(["hosts.ini": "[db]\npg1\tansible_user=root\n"])
        #expect(tabs.error(loading: "hosts.ini") == nil, "a tab is a separator, not a control byte")
    }

    @Test("templates come from KEEL_TEMPLATES or the binary's checkout, never the working directory")
    func templatesNotFromWorkingDirectory() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-tpl-\(UUID().uuidString)")
        let bin = scratch.appendingPathComponent("install/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: scratch.appendingPathComponent("install/templates"), withIntermediateDirectories: true)
        // The tests run in the checkout, whose templates/ the working directory holds.
        #expect(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/templates"))
        let library = TemplateLibrary.locate(executable: bin.appendingPathComponent("keel").path)
        #expect(
            URL(fileURLWithPath: library.directory).standardizedFileURL.path
                == scratch.appendingPathComponent("install/templates").standardizedFileURL.path)
    }
}
