/// A kernel parameter, set now and persisted in `/etc/sysctl.d/`. With `tolerateRefusal`, a host that refuses the
/// parameter (containers refuse most `kernel.*` and `vm.*`) keeps the persisted file and the run goes on.
public struct Sysctl: Resource {
    public var key: String
    public var value: String
    public var tolerateRefusal: Bool

    public init(_ key: String, _ value: String, tolerateRefusal: Bool = false) {
        self.key = key
        self.value = value
        self.tolerateRefusal = tolerateRefusal
    }

    public var description: String { "sysctl \(key)" }

    private var file: String { "/etc/sysctl.d/90-keel-\(key).conf" }

    public var probe: String {
        "echo \"live=$(sysctl -n \(shellQuote(key)) 2>/dev/null | tr -s '\\t ' ' ')\"; echo \"persisted=$(cat \(shellQuote(file)) 2>/dev/null)\""
    }

    public func changes(from output: ProbeOutput, on host: HostContext) throws -> [Change] {
        let fields = output.fields
        var changes: [Change] = []
        if fields["persisted"] != "\(key) = \(value)" {
            changes.append(
                Change(
                    "persist \(key) = \(value)",
                    .shell("printf '%s\\n' \("\(key) = \(value)") > \(file)")))
        }
        if fields["live"] != value && !(tolerateRefusal && changes.isEmpty) {
            let set: ShellCommand = "sysctl -q -w \("\(key)=\(value)")"
            changes.append(
                Change("\(fields["live"] ?? "?") → \(value)", .shell(tolerateRefusal ? "\(set) || true" : set)))
        }
        return changes
    }
}
