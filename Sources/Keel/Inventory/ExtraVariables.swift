import Foundation

/// Variables given on the command line, over every other, as Ansible's `-e`/`--extra-vars` takes them: words of
/// `NAME=VALUE` (strings, as Ansible reads them: `#` is no comment, `{{ y }}` one value), JSON or YAML text
/// (`{"a": 1}`), or `@FILE` (YAML or JSON).
public enum ExtraVariables {
    /// The variables of the `position`-th `-e` (from 1).
    public static func parse(_ argument: String, position: Int) throws(InventoryError) -> [String: Variable] {
        let place = "-e #\(position)"
        if argument.hasPrefix("@") {
            return try Inventory.variables(fromFile: String(argument.dropFirst()), option: place)
        }
        let trimmed = argument.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            guard let root = try YAMLDocument.parse(trimmed, file: place, nodeDepth: 1) else { return [:] }
            return try YAMLDocument.variables(in: root, file: place, context: "the variables of \(place)")
        }
        let location = SourceLocation(file: place, line: 1)
        var variables: [String: Variable] = [:]
        for word in try ShellWords.split(argument, at: location, asExtraVariables: true) {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw InventoryError(
                    "'\(word)' in \(place) is not NAME=VALUE", at: location,
                    hint: "write -e NAME=VALUE, -e '{\"NAME\": VALUE}' or -e @FILE")
            }
            variables[String(word[..<equals])] = Variable(
                .string(String(word[word.index(after: equals)...])), at: location)
        }
        return variables
    }
}
