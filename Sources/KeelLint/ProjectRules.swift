/// The structure rules of this repository, which `make lint` (and so `make test`) checks.
public enum ProjectRules {
    /// The product's code: the modules and the cluster's playbooks.
    static let code = ["Sources", "playbooks"]

    /// A shell loop that counts its waits with seq in a command substitution, written so that this file does not
    /// hold it.
    static let countedLoop = "$" + "(seq"

    public static let all: [any StructureRule] = [
        FileLengthRule(limit: 400, folders: code),
        FileLengthRule(limit: 250, folders: ["playbooks"], narrowedTo: "/Model/"),
        ForbiddenLineRule(
            "no seq-counted loop", text: countedLoop, folders: code,
            hint: "wait with Poll (a deadline, not a count), or build the list in Swift"),
        ForbiddenLineRule(
            "no seq-counted loop in a template", text: countedLoop, folders: ["templates"], suffix: "",
            hint: "wait with a deadline, not a count"),
        ForbiddenLineRule(
            "no KeelSSH import above the engine", text: "import KeelSSH", atStart: true,
            folders: ["Sources/keel", "playbooks"],
            hint: "reach SSH through the engine (Keel: Fleet, ConnectionPool, SessionKeeper)"),
        PortsInOneFileRule(portsFile: "playbooks/Cluster/Model/ClusterPorts.swift", folders: ["playbooks/Cluster"]),
        ConfigurationPathRule(folders: code),
        FolderCycleRule(parent: "playbooks/Cluster"),
        LayoutTableRule(document: "docs/layout.md"),
    ]

    /// Every violation of every rule in `tree`.
    public static func violations(in tree: SourceTree) -> [Violation] {
        all.flatMap { $0.violations(in: tree) }
    }
}
