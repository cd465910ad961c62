import Foundation
import Stencil

/// Finds config templates (in the project's `templates/`) and renders them with Stencil, strictly: a variable
/// that is not defined is an error naming the template and line, never an empty string.
public struct TemplateLibrary: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$KEEL_TEMPLATES`, else `templates/` in the working directory, else the `templates/` of the checkout the
    /// running `keel` was built in.
    public static func locate() -> TemplateLibrary {
        if let configured = ProcessInfo.processInfo.environment["KEEL_TEMPLATES"] { return TemplateLibrary(directory: configured) }
        let local = FileManager.default.currentDirectoryPath + "/templates"
        var candidate = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let templates = candidate.appendingPathComponent("templates").path
            if FileManager.default.fileExists(atPath: templates) && !FileManager.default.fileExists(atPath: local) {
                return TemplateLibrary(directory: templates)
            }
            candidate = candidate.deletingLastPathComponent()
        }
        return TemplateLibrary(directory: local)
    }

    /// Renders template `name` with `context`.
    /// - Throws: ``TemplateError`` for a missing template, a syntax error or an undefined variable.
    public func render(_ name: String, context: [String: Any]) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TemplateError(location: path, message: "template not found (templates are read from \(directory))")
        }
        try checkVariables(text, path: path, context: context)
        let environment = Environment(trimBehaviour: .smart)
        do {
            return try environment.renderTemplate(string: text, context: context)
        } catch let error as TemplateSyntaxError {
            let line = error.token.map { Int($0.sourceMap.location.lineNumber) }
            throw TemplateError(location: line.map { "\(path):\($0)" } ?? path, message: error.reason)
        }
    }

    /// Stencil renders undefined variables as empty strings; check every `{{ … }}` and `{% for … in … %}`
    /// before rendering so that a typo cannot produce a silently broken config.
    private func checkVariables(_ text: String, path: String, context: [String: Any]) throws {
        var loopNames: Set<String> = ["forloop"]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for block in Self.matches(#"\{%-?\s*for\s+([\w\s,]+?)\s+in\s+([^\s%]+)"#, in: String(line)) {
                block[0].split(separator: ",").forEach { loopNames.insert($0.trimmingCharacters(in: .whitespaces)) }
                try require(block[1], line: index + 1)
            }
            for expression in Self.matches(#"\{\{-?\s*(.+?)\s*-?\}\}"#, in: String(line)) where !expression[0].contains("|default") {
                try require(expression[0], line: index + 1)
            }
        }
        func require(_ expression: String, line: Int) throws {
            let root = String(expression.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            guard !root.isEmpty, !(root.first?.isNumber ?? false), !expression.hasPrefix("\""), !expression.hasPrefix("'") else { return }
            if loopNames.contains(root) || ["true", "false"].contains(root) { return }
            guard context[root] != nil else {
                throw TemplateError(
                    location: "\(path):\(line)",
                    message: "variable '\(root)' is not defined for this host; set it in the inventory or group_vars")
            }
        }
    }

    private static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
        }
    }
}

/// A template could not be rendered: where, and why.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public var location: String
    public var message: String
    public var description: String { "\(location): error: \(message)" }
}
