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
    /// above the binary, found through `/proc/self/exe`: `argv[0]` is a bare `keel` when run through PATH, which
    /// would resolve against the working directory). Never the working directory's: those templates render
    /// scripts root runs, and a `templates/` wherever keel happens to be started must not replace them.
    public static func locate(executable: String = runningExecutable) -> TemplateLibrary {
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

    /// The running program's own file, as the kernel knows it.
    public static var runningExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
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
        do {
            return try template.parsed.template.render(context)
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

    /// A template read and tokenized, and the variables it needs: once per run, however many hosts render it.
    private struct Loaded: Sendable {
        let parsed: Parsed
        /// Root variable names used in `{{ … }}` without a default, and in `{% for … in … %}`, with their lines.
        let requiredNames: [(String, Int)]
    }

    /// Stencil's template, its tokens read once. Hosts render it at the same time: rendering reads the tokens and
    /// builds its own parser and context, and the environment's filters keep no state.
    private final class Parsed: @unchecked Sendable {
        let template: Stencil.Template

        init(_ text: String) {
            template = Stencil.Template(
                templateString: text, environment: Environment(extensions: [formats], trimBehaviour: .smart))
        }
    }

    private static let cache = Mutex<[String: Loaded]>([:])

    private static func load(_ path: String, directory: String) throws -> Loaded {
        if let loaded = cache.withLock({ $0[path] }) { return loaded }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TemplateError(location: path, message: "template not found (templates are read from \(directory))")
        }
        let loaded = Loaded(parsed: Parsed(text), requiredNames: requiredNames(in: text))
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
            for block in matches(loopPattern, in: String(line)) {
                block[0].split(separator: ",").forEach { loopNames.insert($0.trimmingCharacters(in: .whitespaces)) }
                require(block[1], line: index + 1)
            }
            for expression in matches(expressionPattern, in: String(line))
            where !expression[0].contains("|default") {
                require(expression[0], line: index + 1)
            }
        }
        return required
    }

    private static let loopPattern = pattern(#"\{%-?\s*for\s+([\w\s,]+?)\s+in\s+([^\s%]+)"#)
    private static let expressionPattern = pattern(#"\{\{-?\s*(.+?)\s*-?\}\}"#)

    private static func pattern(_ text: String) -> CompiledPattern {
        // Constant and valid: a failure here is a mistake in the code above.
        CompiledPattern(expression: try! NSRegularExpression(pattern: text))
    }

    /// A compiled expression, used by many threads: NSRegularExpression matches are safe to run concurrently.
    private struct CompiledPattern: @unchecked Sendable { let expression: NSRegularExpression }

    private static func matches(_ pattern: CompiledPattern, in text: String) -> [[String]] {
        let regex = pattern.expression
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
