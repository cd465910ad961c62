import Keel

extension Examples {
    /// Benchmark (a): 10 directories and 10 small files per host, under its name (a machine may be several inventory
    /// hosts), the same work Benchmarks/ gives Ansible and pyinfra.
    public static let benchFiles = Playbook("bench-files", summary: "benchmark: 10 directories + 10 files per host") {
        Play("bench files", on: "all") { host in
            Directory("/srv/bench/\(host.name)")
            for index in 1...10 {
                Directory("/srv/bench/\(host.name)/dir\(index)")
                File("/srv/bench/\(host.name)/dir\(index)/file.txt", content: "file \(index) on \(host.name)\n")
            }
        }
    }

    /// Benchmark (b): 100 small templates per host.
    public static let benchTemplates = Playbook("bench-templates", summary: "benchmark: 100 templates per host") {
        Play("bench templates", on: "all") { host in
            Directory("/srv/bench-templates")
            for index in 1...100 {
                Template(
                    "bench/item.conf", to: "/srv/bench-templates/item\(index).conf", values: ["index": .int(index)])
            }
        }
    }
}
