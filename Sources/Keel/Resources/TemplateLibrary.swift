import Foundation
import Stencil
import Synchronization

/// Finds config templates (in the project's `templates/`) and renders them with Stencil, strictly: a variable
/// that is not defined is an error naming the template and line, never an empty string. A template writes each
/// value through its file's format: `{{ name|yaml }}` (``yamlQuote(_:)``) and `{{ name|ini }}` (``iniValue(_:)``).
public struct TemplateLibrary: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$KEEL_TEMPLATES`, else the `templates/` of the checkout the running `keel` was built in (the nearest
    /// above the binary). Never the working directory's: those templates render scripts root runs, and a
    /// `templates/` wherever keel happens to be started must not replace them.
    public static func locate(executable: String = CommandLine.arguments.first ?? ".") -> TemplateLibrary {
        if let configured = ProcessInfo.processInfo.environment["KEEL_TEMPLATES"] {
            return TemplateLibrary(directory: configured)
        }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidate = binary
        for _ in 0..<5 {
            let templates = candidate.appendingPathComponent("templates").path
            if FileManager.default.fileExists(atPath: templates) { return TemplateLibrary(directory: templates) }
            candidate = candidate.deletingLastPathComponent()
        }
        return TemplateLibrary(directory: binary.appendingPathComponent("templates").path)
    }

    /// Renders template `name` with `context`.
    /// - Throws: ``TemplateError`` for a missing template, a syntax error or an undefined variable.
    public func render(_ name: String, context: [String: Any]) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        let template = try Self.load(path, directory: directory)
        for (root, line) in template.requiredNames where context[root] == nil {
            throw TemplateError(
                location: "\(path):\(line)",
                message: "variable '\(root)' is not defined for this host; set it in the inventory or group_vars")
        }
        let environment = Environment(extensions: [Self.formats], trimBehaviour: .smart)
        do {
            return try environment.renderTemplate(string: template.text, context: context)
        } catch let error as TemplateSyntaxError {
            let line = error.token.map { Int($0.sourceMap.location.lineNumber) }
            throw TemplateError(location: line.map { "\(path):\($0)" } ?? path, message: error.reason)
        }
    }

    /// The filters that write a value in a file's own syntax.
    private static var formats: Extension {
        let formats = Extension()
        formats.registerFilter("yaml") { value in
            switch value {
            case let text as String: return yamlQuote(text)
            case let number as Int: return number
            case let flag as Bool: return flag
            default: throw TemplateSyntaxError("the yaml filter writes a string, a number or a boolean")
            }
        }
        formats.registerFilter("ini") { value in
            switch value {
            case let text as String:
                do throws(INIValueError) { return try iniValue(text) } catch {
                    throw TemplateSyntaxError(error.description)
                }
            case let number as Int: return number
            default: throw TemplateSyntaxError("the ini filter writes a string or a number")
            }
        }
        return formats
    }

    /// A template's text and the variables it needs, read once per run.
    private struct Loaded: Sendable {
        let text: String
        /// Root variable names used in `{{ … }}` without a default, and in `{% for … in … %}`, with their lines.
        let requiredNames: [(String, Int)]
    }

    private static let cache = Mutex<[String: Loaded]>([:])

    private static func load(_ path: String, directory: String) throws -> Loaded {
        if let loaded = cache.withLock({ $0[path] }) { return loaded }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TemplateError(location: path, message: "template not found (templates are read from \(directory))")
        }
        let loaded = Loaded(text: text, requiredNames: requiredNames(in: text))
        cache.withLock { $0[path] = loaded }
        return loaded
    }

    /// Stencil renders undefined variables as empty strings; these names are checked before rendering so that a
    /// typo cannot produce a silently broken config.
    private static func requiredNames(in text: String) -> [(String, Int)] {
        var loopNames: Set<String> = ["forloop", "true", "false"]
        var required: [(String, Int)] = []
        func require(_ expression: String, line: Int) {
            let root = String(expression.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            guard !root.isEmpty, !(root.first?.isNumber ?? false), !loopNames.contains(root) else { return }
            required.append((root, line))
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for block in matches(#"\{%-?\s*for\s+([\w\s,]+?)\s+in\s+([^\s%]+)"#, in: String(line)) {
                block[0].split(separator: ",").forEach { loopNames.insert($0.trimmingCharacters(in: .whitespaces)) }
                require(block[1], line: index + 1)
            }
            for expression in matches(#"\{\{-?\s*(.+?)\s*-?\}\}"#, in: String(line))
            where !expression[0].contains("|default") {
                require(expression[0], line: index + 1)
            }
        }
        return required
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
