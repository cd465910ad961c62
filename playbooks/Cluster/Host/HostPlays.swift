import Keel

/// The plays every cluster host takes part in.
enum HostPlays {
    /// Checks every host of the cluster before anything changes anywhere; one failing host stops the run.
    static func preflight(_ model: ClusterModel) -> Play {
        Play("pre-flight", on: model.pattern(model.allHosts), guarding: true, tags: ["always"]) { host in
            Preflight(model: model, host: host.name)
        }
    }

    /// Base packages, kernel settings and package sources, on `hosts` (every host of the cluster by default).
    static func common(_ model: ClusterModel, on hosts: [String]? = nil) -> Play {
        Play("common", on: model.pattern(hosts ?? model.allHosts), tags: ["common"]) { host in
            CommonRole(host: host, model: model).steps
        }
    }

    /// The `paths` of each host deleted, files and directories (remove-cluster).
    static func filesRemoved(_ model: ClusterModel, paths: @escaping @Sendable (String) -> [String]) -> Play {
        Play("files removed", on: model.pattern(model.allHosts)) { host in
            for path in paths(host.name) { File.absent(path) }
        }
    }

    /// The `packages` of each host purged (remove-cluster with --purge-packages).
    static func packagesPurged(_ model: ClusterModel, packages: @escaping @Sendable (String) -> [String]) -> Play {
        Play("packages purged", on: model.pattern(model.allHosts)) { host in
            Package(packages(host.name), state: .absent)
        }
    }
}
