/// The actions of several steps taken in one remote invocation, instead of a round trip each: a script, then the
/// uploads' bytes one after another, on standard input (each read exactly with `head -c`: a script of many files
/// is longer than an exec request may be), and a line on standard output after each step's last action, so a
/// failure is laid at the right step's door.
///
/// A host starts processes slowly (a few milliseconds each in a container), so a file costs two: `head` writes a
/// temporary file beside it, created exclusively under a name only this batch knows, with its mode from the umask
/// (`chmod` and `chown` only where that cannot give it), and `mv` renames it over the path. Where an account other
/// than root controls the path, that account writes it (``PathController/place(_:mode:owner:group:as:)``). A
/// command runs in a subshell with no input; every action's output goes to standard error.
struct ActionBatch {
    /// The command: it reads the script off its input and runs it.
    let command: String
    /// The script, then the uploads' bytes in the order the script reads them.
    let input: [UInt8]

    private static let stepDone = "keel-step-done"

    /// Whether `action` can be taken inside a batch: an upload, or a command that reads no input.
    static func accepts(_ action: Action) -> Bool {
        switch action.kind {
        case .upload: true
        case .shell(_, let input, _): input == nil
        case .sql: false
        }
    }

    /// The actions of each step, in order; every one must be ``accepts(_:)``.
    init(_ steps: [[Action]]) {
        let name = ".keel-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        // noclobber: a temporary file is created only if nothing is at its path.
        var lines = ["set -C", "root=$(id -u) umask=$(umask)"]
        var input: [UInt8] = []
        var uploads = 0
        for actions in steps {
            var parts: [String] = []
            var temporaries: [String] = []
            for action in actions {
                switch action.kind {
                case .upload(let path, let bytes, let mode, let owner, let group, let account):
                    input += bytes
                    uploads += 1
                    guard account == "root" else {
                        let place = PathController.place(path, mode: mode, owner: owner, group: group, as: account)
                        parts.append("head -c \(bytes.count) | (set +C; umask $umask; \(place.text)) >&2")
                        continue
                    }
                    let directory = path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
                    let temporary = shellQuote(directory + "/\(name)-\(uploads)")
                    temporaries.append(temporary)
                    parts.append(Self.place(path, from: temporary, count: bytes.count, mode, owner, group))
                case .shell(let command, _, _):
                    parts.append("(set +C; umask $umask; \(command)) </dev/null >&2")
                case .sql:
                    preconditionFailure("a batch takes no SQL")
                }
            }
            let cleanup = temporaries.isEmpty ? "" : "rm -f -- \(temporaries.joined(separator: " ")); "
            lines.append("{ \(parts.joined(separator: " && ")); } || { s=$?; \(cleanup)exit $s; }")
            lines.append("echo \(Self.stepDone)")
        }
        let script = Array(lines.joined(separator: "\n").utf8)
        command = "script=$(head -c \(script.count)) && eval \"$script\""
        self.input = script + input
    }

    /// The next `count` bytes of input at `path`, through `temporary` beside it, as root.
    private static func place(
        _ path: String, from temporary: String, count: Int, _ mode: UInt32, _ owner: String?, _ group: String?
    ) -> String {
        // Created with 0666 less the umask: exact for modes without execute or special bits.
        let exact = mode & 0o7111 == 0
        var commands = ["umask \(octal(exact ? 0o777 & ~mode : 0o077))", "head -c \(count) > \(temporary)"]
        if !exact { commands.append("chmod \(octal(mode)) \(temporary)") }
        if owner != nil || group != nil {
            // Root's own files need no chown when root writes them.
            let chown = "chown \(shellQuote(PathController.ownership(owner, group))) \(temporary)"
            let rootsOwn = (owner ?? "root") == "root" && (group ?? "root") == "root"
            commands.append(rootsOwn ? "{ [ \"$root\" = 0 ] || \(chown); }" : chown)
        }
        commands.append("mv -f -- \(temporary) \(shellQuote(path))")
        return commands.joined(separator: " && ")
    }

    /// How many steps were taken to their end, read from the script's standard output.
    static func completed(in output: String) -> Int {
        output.split(separator: "\n").count { $0 == stepDone }
    }
}
