import Keel

/// The playbooks `keel apply` can run, by name.
public enum Playbooks {
    public static let all: [Playbook] = [webDemo, benchFiles, benchTemplates]

    public static func named(_ name: String) -> Playbook? { all.first { $0.name == name } }
}
