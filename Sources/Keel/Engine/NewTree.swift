/// Consecutive steps of a batch that make a directory not there yet and fill it, made together: in a directory
/// beside it under a name only the batch knows, then renamed into place. The tree appears whole or not at all, and
/// costs a `mkdir` (one for each run of directories of one mode) and a `mv`, instead of a process for every
/// directory and every file: a host starts processes slowly, and a first run makes many new directories with a file
/// or two in each. A file in it needs no temporary file of its own: nothing can see it before the rename.
///
/// The tree takes, after the step making its top directory, each next step that makes a directory or writes a
/// file (as root) right inside a directory the tree makes. When any of them fails, nothing of the tree is left.
struct NewTree {
    /// A directory (no contents) or a file the tree makes.
    private struct Entry {
        let path: String
        let contents: [UInt8]?
        let mode: UInt32
        let owner: String?
        let group: String?
    }

    /// How many steps the tree takes, from the first.
    let steps: Int
    private let top: String
    /// In the order of their steps: a directory before what is in it.
    private let entries: [Entry]

    /// The tree the first steps of `steps` make, each step's actions given; nil when fewer than two steps join.
    init?(_ steps: ArraySlice<[Action]>) {
        guard let first = steps.first, first.count == 1,
            case .directory(let top, let mode, let owner, let group) = first[0].kind,
            Self.isPlain(top)
        else { return nil }
        var entries = [Entry(path: top, contents: nil, mode: mode, owner: owner, group: group)]
        var made: Set<String> = [top]
        joining: for actions in steps.dropFirst() {
            guard actions.count == 1 else { break }
            switch actions[0].kind {
            case .directory(let path, let mode, let owner, let group) where Self.isInside(made, path):
                entries.append(Entry(path: path, contents: nil, mode: mode, owner: owner, group: group))
                made.insert(path)
            case .upload(let path, let bytes, let mode, let owner, let group, let account)
            where account == "root" && Self.isInside(made, path):
                entries.append(Entry(path: path, contents: bytes, mode: mode, owner: owner, group: group))
            default:
                break joining
            }
        }
        guard entries.count > 1 else { return nil }
        (self.steps, self.top, self.entries) = (entries.count, top, entries)
    }

    /// The path the tree is made at before its rename, beside its top directory.
    func staging(named name: String) -> String {
        let parent = Self.parent(of: top)
        return (parent == "/" ? "" : parent) + "/" + name
    }

    /// The commands making the tree at `staging` and renaming it into place; contents the script cannot carry are
    /// appended to `input`.
    func script(in staging: String, input: inout [UInt8]) -> String {
        let staged = { (path: String) in staging + path.dropFirst(top.count) }
        // The umask the batch started with (a file before changed it): missing parents get its mode, as `mkdir -p`
        // gives them.
        let parent = Self.parent(of: top)
        var commands = ["umask $umask", "{ [ -d \(shellQuote(parent)) ] || mkdir -p -- \(shellQuote(parent)); }"]
        let directories = entries.filter { $0.contents == nil }
        var index = 0
        while index < directories.count {
            let mode = directories[index].mode
            let run = directories[index...].prefix { $0.mode == mode }
            commands.append(
                "mkdir -m \(octal(mode)) -- " + run.map { shellQuote(staged($0.path)) }.joined(separator: " "))
            index += run.count
        }
        for directory in directories {
            if let settle = PathController.settle(
                directory: staged(directory.path), mode: directory.mode, owner: directory.owner, group: directory.group)
            {
                commands.append(settle.text)
            }
        }
        for file in entries {
            guard let contents = file.contents else { continue }
            let write = ActionBatch.write(contents, input: &input)
            commands += ActionBatch.create(staged(file.path), writtenBy: write, file.mode, file.owner, file.group)
        }
        commands.append("mv -T -- \(shellQuote(staging)) \(shellQuote(top))")
        return commands.joined(separator: " && ")
    }

    /// Whether `path` is absolute and names each of its components plainly (no `.`, `..` or empty one), so the
    /// tree's paths can be told apart by their text.
    private static func isPlain(_ path: String) -> Bool {
        path.hasPrefix("/")
            && path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
                !$0.isEmpty && $0 != "." && $0 != ".."
            }
    }

    /// Whether `path` is plain and right inside one of the directories `made`.
    private static func isInside(_ made: Set<String>, _ path: String) -> Bool {
        isPlain(path) && made.contains(parent(of: path))
    }

    /// The directory `path` is in, `/` for a path right under it.
    private static func parent(of path: String) -> String {
        let parent = PathController.directory(of: path)
        return parent.isEmpty ? "/" : parent
    }
}
