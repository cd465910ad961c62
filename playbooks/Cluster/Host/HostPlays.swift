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
}
