import Keel

/// Small playbooks `keel apply` runs: a web demo for the engine's tests, and the benchmarks' workloads.
public enum Examples {
    public static let all: [Playbook] = [webDemo, benchFiles, benchTemplates]

    public static func named(_ name: String) -> Playbook? { all.first { $0.name == name } }
}
