/// What a file or directory on the host looks like, from its step's probe output: type, mode, owner, group and,
/// for regular files, the SHA-256 of the contents (the lines of its ``PathInspection``), and the account that
/// controls it (``PathController/probe(_:)``).
struct FileAttributes: Equatable {
    enum Kind: String { case missing, file, directory, other }

    var kind: Kind
    var mode: UInt32?
    var owner: String?
    var group: String?
    var sha256: String?
    /// The account Keel acts as on this path (see ``PathController``).
    var account = "root"

    init(
        kind: Kind, mode: UInt32? = nil, owner: String? = nil, group: String? = nil, sha256: String? = nil,
        account: String = "root"
    ) {
        self.kind = kind
        self.mode = mode
        self.owner = owner
        self.group = group
        self.sha256 = sha256
        self.account = account
    }

    init(_ output: ProbeOutput, path: String) throws {
        let fields = output.fields
        guard let kind = fields["kind"].flatMap(Kind.init(rawValue:)) else {
            throw ResourceError("cannot read the state of \(path): \(output.text.isEmpty ? "no output" : output.text)")
        }
        self.init(
            kind: kind, mode: fields["mode"].flatMap { UInt32($0, radix: 8) }, owner: fields["owner"],
            group: fields["group"], sha256: fields["sha256"].map { String($0.prefix(64)) },
            account: fields["account"] ?? "root")
    }

    /// Changes to mode, owner and group of an existing path, with the commands that make them, run as the
    /// account that controls it. Root changes no owner there: a path that account controls may be a link by then.
    func attributeChanges(path: String, mode: UInt32?, owner: String?, group: String?) throws -> [Change] {
        var changes: [Change] = []
        if let mode, self.mode != mode {
            changes.append(
                Change(
                    "mode \(self.mode.map(octal) ?? "?") → \(octal(mode))",
                    .shell(PathController.run("chmod \(raw: exactMode(mode)) \(path)", as: account))))
        }
        if let owner, self.owner != owner {
            guard account == "root" else {
                throw ResourceError(
                    "\(path) belongs to \(self.owner ?? "?"), in a directory \(account) controls: Keel does not change its "
                        + "owner as root there; remove it, or give it to \(owner) yourself")
            }
            changes.append(
                Change(
                    "owner \(self.owner ?? "?") → \(owner)", .shell("chown \(owner) \(path)")))
        }
        if let group, self.group != group {
            changes.append(
                Change(
                    "group \(self.group ?? "?") → \(group)",
                    .shell(PathController.run("chgrp \(group) \(path)", as: account))))
        }
        return changes
    }
}

/// `0o644` as `0644`.
func octal(_ mode: UInt32) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// chmod's argument setting `mode` exactly: GNU chmod keeps a directory's setgid bit through `0755` unless the mode
/// has a fifth digit (`00755`).
func exactMode(_ mode: UInt32) -> String { "0" + octal(mode) }
