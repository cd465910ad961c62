import Keel

/// A package of the cluster's that apt would now install in a newer version.
public struct PackageUpdate: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let installed: String
    public let candidate: String

    public var description: String { "\(name) \(installed) → \(candidate)" }

    /// Reads, as root, apt's lists afresh (waiting for another apt run to end), then prints one
    /// `name<TAB>installed<TAB>candidate` line for each of `names` installed whose candidate is newer.
    static func read(_ names: [String]) -> String {
        "\(Package.otherRunsEnded); \(AptGet.update(within: 300).text) >/dev/null || exit 1; for p in \(names.map(shellQuote).joined(separator: " ")); do "
            + "i=$(dpkg-query -W -f='${Version}' \"$p\" 2>/dev/null) || continue; "
            + "c=$(apt-cache policy \"$p\" | sed -n 's/^ *Candidate: //p'); "
            + "[ -n \"$i\" ] && [ -n \"$c\" ] && [ \"$c\" != '(none)' ] && dpkg --compare-versions \"$i\" lt \"$c\" "
            + "&& printf '%s\\t%s\\t%s\\n' \"$p\" \"$i\" \"$c\"; done; true"
    }

    /// The updates in what ``read(_:)`` printed.
    static func parse(_ text: String) -> [PackageUpdate] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 ? PackageUpdate(name: fields[0], installed: fields[1], candidate: fields[2]) : nil
        }
    }
}
