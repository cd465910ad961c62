/// The actions of several steps taken in one remote invocation, instead of a round trip each: a script on standard
/// input (a script of many files is longer than an exec request may be), and a line on standard output after each
/// step's last action, so a failure is laid at the right step's door.
///
/// A host starts processes slowly (about a millisecond each in a container), so a file costs one: the shell's own
/// `printf` writes a temporary file beside it, created exclusively under a name only this batch knows, with its mode
/// from the umask (`chmod` and `chown` only where that cannot give it), and `mv` renames it over the path; a new
/// directory and what the next steps put in it are made together, as one tree renamed into place (``NewTree``).
/// Contents a shell word cannot hold (a NUL, bytes that are not UTF-8) or that are large follow the script on
/// standard input, each read exactly with `head -c`. Where an account other than root controls the path, that
/// account writes it (``PathController/place(_:mode:owner:group:as:)``). A command runs in a subshell with no input;
/// every action's output goes to standard error. When every step was taken, the same script probes the steps again
/// (the proof that they converged), its output after a line of its own on standard output: one round trip for both.
struct ActionBatch {
    /// The command: it reads the script off its input and runs it.
    let command: String
    /// The script, then the bytes of the uploads it reads with `head`, in that order.
    let input: [UInt8]
    /// How many steps each new tree made together (``NewTree``), by the offset of its first step.
    let trees: [Int: Int]

    private static let stepDone = "keel-step-done"
    private static let probing = "keel-probing"
    /// The largest contents written from the script itself: a shell word of this size costs the shell nothing to
    /// hold, and `printf` is the shell's own (the contents are never an argument of a process).
    private static let largestInScript = 64 * 1024

    /// Whether `action` can be taken inside a batch: an upload, a new directory, or a command that reads no input
    /// and may be cut short with the run.
    static func accepts(_ action: Action) -> Bool {
        switch action.kind {
        case .upload, .directory: true
        case .shell(_, let input, _): input == nil
        case .detached, .sql: false
        }
    }

    /// The actions of each step, in order; every one must be ``accepts(_:)``; then, when all were taken, `probe`.
    init(_ steps: [[Action]], thenProbing probe: ProbeBatch? = nil) {
        let name = ".keel-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        // noclobber: a temporary file is created only if nothing is at its path.
        var lines = ["set -C", "umask=$(umask)"]
        var input: [UInt8] = []
        var uploads = 0
        var trees: [Int: Int] = [:]
        var index = 0
        while index < steps.count {
            if let tree = NewTree(steps[index...]) {
                let staging = tree.staging(named: "\(name)-\(index)")
                let script = tree.script(in: staging, input: &input)
                lines.append("{ \(script); } || { s=$?; rm -rf -- \(shellQuote(staging)); exit $s; }")
                lines += Array(repeating: "echo \(Self.stepDone)", count: tree.steps)
                trees[index] = tree.steps
                index += tree.steps
                continue
            }
            var parts: [String] = []
            var temporaries: [String] = []
            for action in steps[index] {
                switch action.kind {
                case .upload(let path, let bytes, let mode, let owner, let group, let account):
                    uploads += 1
                    guard account == "root" else {
                        input += bytes
                        let place = PathController.place(path, mode: mode, owner: owner, group: group, as: account)
                        parts.append("head -c \(bytes.count) | (set +C; umask $umask; \(place.text)) >&2")
                        continue
                    }
                    let temporary = "\(PathController.directory(of: path))/\(name)-\(uploads)"
                    temporaries.append(shellQuote(temporary))
                    let write = Self.write(bytes, input: &input)
                    parts.append(
                        (Self.create(temporary, writtenBy: write, mode, owner, group)
                            + ["mv -f -- \(shellQuote(temporary)) \(shellQuote(path))"]).joined(separator: " && "))
                case .shell(let command, _, _):
                    parts.append("(set +C; umask $umask; \(command)) </dev/null >&2")
                case .directory(let path, let mode, let owner, let group):
                    let make = PathController.makeDirectory(path, mode: mode, owner: owner, group: group)
                    parts.append("(set +C; umask $umask; \(make.text)) </dev/null >&2")
                case .detached, .sql:
                    preconditionFailure("a batch takes no SQL and no detached job")
                }
            }
            let cleanup = temporaries.isEmpty ? "" : "rm -f -- \(temporaries.joined(separator: " ")); "
            lines.append("{ \(parts.joined(separator: " && ")); } || { s=$?; \(cleanup)exit $s; }")
            lines.append("echo \(Self.stepDone)")
            index += 1
        }
        if let probe {
            lines.append("echo \(Self.probing)")
            lines.append("(set +C; umask $umask\n\(probe.script)\n) </dev/null 2>/dev/null")
        }
        let script = Array(lines.joined(separator: "\n").utf8)
        command = "script=$(head -c \(script.count)) && eval \"$script\""
        self.input = script + input
        self.trees = trees
    }

    /// The shell's own `printf` of `bytes` as a word of the script when it can carry them (small, UTF-8, no NUL);
    /// else `head` reading them exactly, from `input` after the script.
    static func write(_ bytes: [UInt8], input: inout [UInt8]) -> String {
        guard bytes.count <= largestInScript, !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self)
        else {
            input += bytes
            return "head -c \(bytes.count)"
        }
        return "printf %s \(shellQuote(text))"
    }

    /// The commands making a new file at `path` of what `write` prints, as root, with `mode`, `owner` and `group`.
    static func create(
        _ path: String, writtenBy write: String, _ mode: UInt32, _ owner: String?, _ group: String?
    ) -> [String] {
        // Created with 0666 less the umask: exact for modes without execute or special bits.
        let exact = mode & 0o7111 == 0
        let quoted = shellQuote(path)
        var commands = ["umask \(octal(exact ? 0o777 & ~mode : 0o077))", "\(write) > \(quoted)"]
        if !exact { commands.append("chmod \(octal(mode)) \(quoted)") }
        if owner != nil || group != nil {
            commands.append(PathController.chown(path, owner: owner, group: group).text)
        }
        return commands
    }

    /// What the actions printed and did, and what the probe after them printed: nil when it did not run.
    static func split(_ result: ExecResult) -> (actions: ExecResult, probe: String?) {
        let marker = Array("\(probing)\n".utf8)
        guard let start = result.stdout.firstRange(of: marker) else { return (result, nil) }
        var actions = result
        actions.stdout = Array(result.stdout[..<start.lowerBound])
        (actions.exitStatus, actions.signal) = (0, nil)
        return (actions, String(decoding: result.stdout[start.upperBound...], as: UTF8.self))
    }

    /// How many steps were taken to their end, read from the script's standard output.
    static func completed(in output: String) -> Int {
        output.split(separator: "\n").count { $0 == stepDone }
    }
}
